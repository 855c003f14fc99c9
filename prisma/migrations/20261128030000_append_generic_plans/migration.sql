-- The append functions' statements are planned once per connection, not at every call (issue 31).
--
-- PL/pgSQL caches a plan per statement, but for a statement with parameters Postgres plans it
-- anew at every call whenever the generic plan's estimate looks worse than a custom one. The
-- events INSERT selects from generate_series(1, n): with n unknown a generic plan estimates 1,000
-- rows, with n known a custom plan estimates n, so the custom plan always "wins" and every
-- append re-planned its INSERT (a perf profile of a backend running hub_append_batch: a quarter
-- to a third of its time in the planner). Every plan in these functions is the same whatever the
-- arguments (index lookups by key, one insert), so the generic plan is the right one.
ALTER FUNCTION "hub_append_item"(TEXT, TEXT, INTEGER, TEXT, BIGINT, TEXT[], TEXT[], TEXT[], TEXT[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "hub_append_batch"(TEXT[], TEXT[], INTEGER[], TEXT[], INTEGER[], TEXT[], TEXT[], TEXT[], TEXT[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "hub_append"(TEXT, TEXT, INTEGER, TEXT, TEXT[], TEXT[], TEXT[], TEXT[]) SET plan_cache_mode = force_generic_plan;
