-- A verified key is kept by each ingress until `hub_keys` says it changed (ADR 0027). The first
-- trigger spoke only for a revocation, a new expiry or a deletion; an operator's SQL that demoted
-- a key (`role`), renamed it, or replaced its secret (`hash`) went unheard, and every ingress
-- went on acting on the old row. Now every change of a key but the record of its use
-- (`last_used_at`, written on each verification) is heard, whatever column a later migration adds.
DROP TRIGGER "api_keys_changed" ON "api_keys";

CREATE TRIGGER "api_keys_changed" AFTER UPDATE ON "api_keys"
    FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION "hub_api_keys_changed"();
