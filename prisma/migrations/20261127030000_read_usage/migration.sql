-- Usage read model (issue 26, ADR 0043): one row per turn, attributed to the key that requested
-- it and the UTC day of its request; GET /v1/usage sums them per tenant, key and day. Kept by
-- the `usage` projection like the other read models (checkpointed, rebuildable, replay-checked).
CREATE TABLE "read_usage" (
    "tenant_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "key_prefix" TEXT,
    "outcome" TEXT,
    "model_calls" INTEGER NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "tool_calls" JSONB NOT NULL,
    "approvals" INTEGER NOT NULL,
    "approval_wait_ms" BIGINT NOT NULL,
    "waiting" JSONB NOT NULL,
    "updated_position" BIGINT NOT NULL,

    CONSTRAINT "read_usage_pkey" PRIMARY KEY ("tenant_id","session_id","turn_id")
);
-- What the API reads: a tenant's days in a range (and one key's).
CREATE INDEX "read_usage_tenant_id_day_idx" ON "read_usage"("tenant_id", "day");

GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON "read_usage" TO hub_app;

ALTER TABLE "read_usage" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "read_usage" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "read_usage" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "read_usage" USING (hub_system_scope());
