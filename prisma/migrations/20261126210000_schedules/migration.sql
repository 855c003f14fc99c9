-- Schedules (issue 25, ADR 0037): agent runs that start on their own.
--
-- `schedules` holds each schedule's spec and where its ticker stands (the last tick enumerated,
-- the next fire time, the last run it started, a tick buffered under `buffer_one`). Its changes
-- are recorded as events on the tenant's admin stream; this row is what the tickers work from.
--
-- `schedule_ticks` is one row per tick that was decided: its identity (schedule, scheduled
-- time) is the primary key, so a tick is decided once however many tickers race for it, and a
-- started tick names the session and turn it made with the scheduled and the actual start.
CREATE TABLE "schedules" (
    "tenant_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "client_key" TEXT,
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT,
    "created_by" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_tick_at" TIMESTAMPTZ(3) NOT NULL,
    "next_fire_at" TIMESTAMPTZ(3),
    "last_session_id" TEXT,
    "last_turn_id" TEXT,
    "buffered_at" TIMESTAMPTZ(3),

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("tenant_id","id")
);
CREATE UNIQUE INDEX "schedules_tenant_id_client_key_key" ON "schedules"("tenant_id", "client_key");
CREATE INDEX "schedules_next_fire_at_idx" ON "schedules"("next_fire_at");

CREATE TABLE "schedule_ticks" (
    "tenant_id" UUID NOT NULL,
    "schedule_id" TEXT NOT NULL,
    "scheduled_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "source" TEXT NOT NULL,
    "session_id" TEXT,
    "turn_id" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedule_ticks_pkey" PRIMARY KEY ("tenant_id","schedule_id","scheduled_at")
);

GRANT SELECT, INSERT, UPDATE, DELETE ON "schedules", "schedule_ticks" TO hub_app;

ALTER TABLE "schedules" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "schedules" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "schedules" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "schedules" USING (hub_system_scope());

ALTER TABLE "schedule_ticks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "schedule_ticks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenant_rows" ON "schedule_ticks" USING ("tenant_id" = hub_current_tenant());
CREATE POLICY "system_scope" ON "schedule_ticks" USING (hub_system_scope());
