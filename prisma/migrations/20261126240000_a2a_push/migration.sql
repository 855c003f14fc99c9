-- A2A push notifications (issue 27, docs/adr/0036-a2a-tasks-folded-from-the-log.md, amendment).
-- The configs are facts in the log (the session's `a2a-push-` stream); this is only the outbox:
-- one row per (config, event, frame) the log produced, written with the `a2a-push` checkpoint
-- (a row of webhook_checkpoints) in one transaction; `id` is the `webhook-id` of every attempt.
CREATE TABLE "a2a_push_messages" (
    "id"              TEXT NOT NULL,
    "tenant_id"       UUID NOT NULL,
    "task_id"         TEXT NOT NULL,
    "config_id"       TEXT NOT NULL,
    "event_position"  BIGINT NOT NULL,
    "frame"           INTEGER NOT NULL,
    "url"             TEXT NOT NULL,
    "headers"         JSONB NOT NULL,
    "body"            TEXT NOT NULL,
    "status"          TEXT NOT NULL,
    "attempts"        INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "leased_until"    TIMESTAMPTZ(3),
    "last_status"     INTEGER,
    "last_error"      TEXT,
    "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "a2a_push_messages_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "a2a_push_messages_config_event_key" ON "a2a_push_messages"("tenant_id", "task_id", "config_id", "event_position", "frame");
CREATE INDEX "a2a_push_messages_status_next_attempt_at_idx" ON "a2a_push_messages"("status", "next_attempt_at");

GRANT SELECT, INSERT, UPDATE, DELETE ON "a2a_push_messages" TO hub_app;

ALTER TABLE "a2a_push_messages" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "a2a_push_messages" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "a2a_push_messages" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "a2a_push_messages" USING (hub_system_scope());
