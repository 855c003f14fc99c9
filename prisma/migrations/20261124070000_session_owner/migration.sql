-- Who opened each session (issue 16): the key prefix of its first event's actor, so a client
-- key's list shows only its own sessions in one indexed read. Rows projected before this column
-- stay NULL until `hub projections rebuild sessions`.
ALTER TABLE "read_sessions" ADD COLUMN "opened_by" TEXT;
CREATE INDEX "read_sessions_tenant_id_opened_by_last_position_idx" ON "read_sessions"("tenant_id", "opened_by", "last_position");
