-- Sign-in with the company's identity provider (issue 24, docs/adr/0041-people-sign-in-with-openid-connect.md).

-- A tenant's OpenID Connect provider, set by its admin. `client_secret` is kept like the other
-- tenant secrets (webhook signing secrets, tenant_secrets): a column under row-level security,
-- never in the log, never shown back. `group_roles` is {"group": "role"}.
CREATE TABLE "identity_providers" (
    "tenant_id"         UUID NOT NULL,
    "name"              TEXT NOT NULL,
    "issuer"            TEXT NOT NULL,
    "client_id"         TEXT NOT NULL,
    "client_secret"     TEXT,
    "audience"          TEXT,
    "scopes"            TEXT[] NOT NULL,
    "groups_claim"      TEXT NOT NULL,
    "group_roles"       JSONB NOT NULL,
    "allowed_domains"   TEXT[] NOT NULL,
    "api_key_console"   BOOLEAN NOT NULL DEFAULT true,
    "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "identity_providers_pkey" PRIMARY KEY ("tenant_id")
);
-- A bearer access token names its issuer before its tenant is known.
CREATE INDEX "identity_providers_issuer_idx" ON "identity_providers"("issuer");

-- The console's signed-in people: one row per browser session. The cookie holds the id and a
-- secret whose SHA-256 is `secret_hash`; `csrf_token` is the double-submit proof the console
-- sends back in a header. The person's role is recomputed at every sign-in and refresh;
-- `revoked_at`, set by an admin, ends the session at its next request.
CREATE TABLE "person_sessions" (
    "id"                UUID NOT NULL,
    "tenant_id"         UUID NOT NULL,
    "secret_hash"       TEXT NOT NULL,
    "csrf_token"        TEXT NOT NULL,
    "iss"               TEXT NOT NULL,
    "sub"               TEXT NOT NULL,
    "name"              TEXT,
    "email"             TEXT,
    "role"              TEXT NOT NULL,
    "refresh_token"     TEXT,
    "id_token"          TEXT,
    "expires_at"        TIMESTAMPTZ(3) NOT NULL,
    "revoked_at"        TIMESTAMPTZ(3),
    "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "person_sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "person_sessions_tenant_id_sub_idx" ON "person_sessions"("tenant_id", "sub");

GRANT SELECT, INSERT, UPDATE, DELETE ON "identity_providers", "person_sessions" TO hub_app;

ALTER TABLE "identity_providers" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "identity_providers" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "identity_providers" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "identity_providers" USING (hub_system_scope());

ALTER TABLE "person_sessions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "person_sessions" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "person_sessions" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "person_sessions" USING (hub_system_scope());
