-- Read models: checkpointed projections of the log (libs/projections). Every row is derived from
-- events only (positions and event times, never the wall clock), so a rebuild from zero
-- reproduces it exactly.

-- CreateTable
CREATE TABLE "projection_checkpoints" (
    "name" TEXT NOT NULL,
    "position" BIGINT NOT NULL DEFAULT 0,
    "skipped_unknown" BIGINT NOT NULL DEFAULT 0,
    "last_skipped_type" TEXT,
    "last_event_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projection_checkpoints_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "read_sessions" (
    "tenant_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "opened_via" TEXT,
    "title" TEXT,
    "turn_count" INTEGER NOT NULL,
    "active_turn_id" TEXT,
    "pending_approvals" INTEGER NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "total_tokens" BIGINT NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "last_activity_at" TIMESTAMPTZ(3) NOT NULL,
    "last_position" BIGINT NOT NULL,

    CONSTRAINT "read_sessions_pkey" PRIMARY KEY ("tenant_id","session_id")
);

-- CreateTable
CREATE TABLE "read_turns" (
    "tenant_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "requested_via" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,
    "provider" TEXT,
    "model" TEXT,
    "model_calls" INTEGER NOT NULL,
    "tool_calls" INTEGER NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "total_tokens" BIGINT NOT NULL,
    "end_reason" TEXT,
    "error_code" TEXT,
    "requested_position" BIGINT NOT NULL,
    "updated_position" BIGINT NOT NULL,

    CONSTRAINT "read_turns_pkey" PRIMARY KEY ("tenant_id","session_id","turn_id")
);

-- CreateTable
CREATE TABLE "read_approvals" (
    "tenant_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "arguments" JSONB,
    "risk_tier" TEXT NOT NULL,
    "request_reason" TEXT NOT NULL,
    "requested_via" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "deadline_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "decision" TEXT,
    "resolved_by" JSONB,
    "resolved_via" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "resolution_reason" TEXT,
    "requested_position" BIGINT NOT NULL,
    "updated_position" BIGINT NOT NULL,

    CONSTRAINT "read_approvals_pkey" PRIMARY KEY ("tenant_id","session_id","approval_id")
);

-- CreateIndex
CREATE INDEX "read_sessions_tenant_id_last_position_idx" ON "read_sessions"("tenant_id", "last_position");

-- CreateIndex
CREATE INDEX "read_sessions_tenant_id_status_last_position_idx" ON "read_sessions"("tenant_id", "status", "last_position");

-- CreateIndex
CREATE INDEX "read_turns_tenant_id_session_id_requested_position_idx" ON "read_turns"("tenant_id", "session_id", "requested_position");

-- CreateIndex
CREATE INDEX "read_approvals_tenant_id_status_requested_position_idx" ON "read_approvals"("tenant_id", "status", "requested_position");

-- CreateIndex
CREATE INDEX "read_approvals_tenant_id_updated_position_idx" ON "read_approvals"("tenant_id", "updated_position");

-- CreateIndex
CREATE INDEX "read_approvals_tenant_id_session_id_turn_id_idx" ON "read_approvals"("tenant_id", "session_id", "turn_id");
