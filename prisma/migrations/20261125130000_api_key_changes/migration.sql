-- Ingress keeps the keys it verified for a while (issue 18, ADR 0027): a revocation, a new
-- expiry or a deleted key (a tenant's, by cascade) must reach every process at once, whoever
-- made it (the admin API, `hub key revoke`, an operator's SQL). Each such change NOTIFYs
-- `hub_keys` with the key's id when it commits; `last_used_at` updates do not.
CREATE FUNCTION "hub_api_keys_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hub_keys', COALESCE(NEW.id, OLD.id)::text);
    RETURN NULL;
END;
$$;

CREATE TRIGGER "api_keys_changed" AFTER UPDATE OF "revoked_at", "expires_at" ON "api_keys"
    FOR EACH ROW WHEN (OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at" OR OLD."expires_at" IS DISTINCT FROM NEW."expires_at")
    EXECUTE FUNCTION "hub_api_keys_changed"();

CREATE TRIGGER "api_keys_deleted" AFTER DELETE ON "api_keys"
    FOR EACH ROW EXECUTE FUNCTION "hub_api_keys_changed"();
