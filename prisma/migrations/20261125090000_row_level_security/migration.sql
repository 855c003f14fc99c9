-- Row-level security (issue 16, docs/adr/0023-row-level-security.md).

-- The apps' group role. Roles belong to the server, not to this database: it may exist already
-- (made by the operator, or by another database of the same server), and two databases
-- migrating at once may both try to create it; the loser's duplicate is no error.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'hub_app') THEN
        CREATE ROLE hub_app NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'the role running migrations cannot create roles: create the apps'' group role first, as a superuser: CREATE ROLE hub_app NOLOGIN';
END $$;

-- What the apps do, and no more: the log is appended to and erased by whole streams, never
-- updated; tenants are never renamed or removed; a read model's rebuild truncates it.
GRANT USAGE ON SCHEMA public TO hub_app;
GRANT SELECT, INSERT ON "tenants", "tenant_secrets" TO hub_app;
GRANT SELECT, INSERT, UPDATE ON "api_keys", "projection_checkpoints" TO hub_app;
GRANT SELECT, INSERT, DELETE ON "events", "idempotency_keys" TO hub_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON "streams", "session_snapshots" TO hub_app;
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON "read_sessions", "read_turns", "read_approvals" TO hub_app;
GRANT USAGE, UPDATE ON SEQUENCE "events_global_position_seq" TO hub_app;

-- The tenant a transaction acts for, and whether it is named system work (libs/event-store
-- src/scope.ts sets them with set_config(..., true): they end with the transaction). A setting
-- once used in a session reads '' afterwards, hence NULLIF. Plain SQL, STABLE: the planner
-- inlines them into the policies, so `tenant_id = hub_current_tenant()` is an ordinary qual.
CREATE FUNCTION "hub_current_tenant"() RETURNS UUID
LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT NULLIF(current_setting('hub.tenant_id', true), '')::uuid $$;

CREATE FUNCTION "hub_system_scope"() RETURNS BOOLEAN
LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT COALESCE(current_setting('hub.scope', true) = 'system', false) $$;

-- Every table with a tenant column (and tenants itself): a statement sees, and may write, the
-- rows of the tenant its transaction set, or every row as system work; with neither, nothing.
-- FORCE: the tables' owner is held to the policies too (a superuser or a BYPASSRLS role is not).
ALTER TABLE "tenants" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "tenants" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "tenants" USING ("id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "tenants" USING (hub_system_scope());

ALTER TABLE "api_keys" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "api_keys" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "api_keys" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "api_keys" USING (hub_system_scope());

ALTER TABLE "tenant_secrets" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "tenant_secrets" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "tenant_secrets" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "tenant_secrets" USING (hub_system_scope());

ALTER TABLE "streams" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "streams" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "streams" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "streams" USING (hub_system_scope());

ALTER TABLE "events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "events" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "events" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "events" USING (hub_system_scope());

ALTER TABLE "idempotency_keys" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "idempotency_keys" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "idempotency_keys" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "idempotency_keys" USING (hub_system_scope());

ALTER TABLE "session_snapshots" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "session_snapshots" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "session_snapshots" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "session_snapshots" USING (hub_system_scope());

ALTER TABLE "read_sessions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "read_sessions" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "read_sessions" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "read_sessions" USING (hub_system_scope());

ALTER TABLE "read_turns" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "read_turns" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "read_turns" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "read_turns" USING (hub_system_scope());

ALTER TABLE "read_approvals" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "read_approvals" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "read_approvals" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "read_approvals" USING (hub_system_scope());
