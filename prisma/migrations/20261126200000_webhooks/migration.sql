-- Outbound webhooks and approval links (issue 28, docs/adr/0034-webhooks-from-the-log.md).

-- A tenant's endpoints. `secrets` holds the signing secrets, newest first, each
-- {"secret": "whsec_…", "expiresAt": ISO time | null}: during a rotation's overlap both sign.
CREATE TABLE "webhook_endpoints" (
    "id"              UUID NOT NULL,
    "tenant_id"       UUID NOT NULL,
    "url"             TEXT NOT NULL,
    "events"          TEXT[] NOT NULL,
    "description"     TEXT,
    "enabled"         BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "secrets"         JSONB NOT NULL,
    "failing_since"   TIMESTAMPTZ(3),
    "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_endpoints_tenant_id_idx" ON "webhook_endpoints"("tenant_id");

-- The outbox: one row per (endpoint, event) the log produced, written with the outbox's
-- checkpoint in one transaction; `id` is the message's `webhook-id`, the same on every attempt.
CREATE TABLE "webhook_messages" (
    "id"              TEXT NOT NULL,
    "tenant_id"       UUID NOT NULL,
    "endpoint_id"     UUID NOT NULL,
    "event_type"      TEXT NOT NULL,
    "event_position"  BIGINT,
    "payload"         JSONB NOT NULL,
    "status"          TEXT NOT NULL,
    "attempts"        INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "leased_until"    TIMESTAMPTZ(3),
    "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_messages_endpoint_id_event_position_key" ON "webhook_messages"("endpoint_id", "event_position");
CREATE INDEX "webhook_messages_status_next_attempt_at_idx" ON "webhook_messages"("status", "next_attempt_at");
CREATE INDEX "webhook_messages_tenant_id_endpoint_id_created_at_idx" ON "webhook_messages"("tenant_id", "endpoint_id", "created_at");
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every attempt of every message: the delivery log.
CREATE TABLE "webhook_attempts" (
    "id"              UUID NOT NULL,
    "tenant_id"       UUID NOT NULL,
    "endpoint_id"     UUID NOT NULL,
    "message_id"      TEXT NOT NULL,
    "attempt"         INTEGER NOT NULL,
    "started_at"      TIMESTAMPTZ(3) NOT NULL,
    "latency_ms"      INTEGER NOT NULL,
    "response_status" INTEGER,
    "outcome"         TEXT NOT NULL,
    "error"           TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_attempts_tenant_id_endpoint_id_started_at_idx" ON "webhook_attempts"("tenant_id", "endpoint_id", "started_at");
CREATE INDEX "webhook_attempts_message_id_idx" ON "webhook_attempts"("message_id");
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "webhook_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Per tenant: whether approval links are on, and the key they are signed with.
CREATE TABLE "webhook_tenant_settings" (
    "tenant_id"      UUID NOT NULL,
    "approval_links" BOOLEAN NOT NULL DEFAULT true,
    "link_key"       TEXT NOT NULL,
    CONSTRAINT "webhook_tenant_settings_pkey" PRIMARY KEY ("tenant_id")
);

-- Where the outbox stands in the log (global position): no tenant, like projection_checkpoints.
CREATE TABLE "webhook_checkpoints" (
    "name"       TEXT NOT NULL,
    "position"   BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_checkpoints_pkey" PRIMARY KEY ("name")
);

GRANT SELECT, INSERT, UPDATE, DELETE ON "webhook_endpoints", "webhook_messages", "webhook_attempts", "webhook_tenant_settings" TO hub_app;
GRANT SELECT, INSERT, UPDATE ON "webhook_checkpoints" TO hub_app;

ALTER TABLE "webhook_endpoints" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_endpoints" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "webhook_endpoints" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "webhook_endpoints" USING (hub_system_scope());

ALTER TABLE "webhook_messages" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_messages" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "webhook_messages" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "webhook_messages" USING (hub_system_scope());

ALTER TABLE "webhook_attempts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_attempts" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "webhook_attempts" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "webhook_attempts" USING (hub_system_scope());

ALTER TABLE "webhook_tenant_settings" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_tenant_settings" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "webhook_tenant_settings" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "webhook_tenant_settings" USING (hub_system_scope());
