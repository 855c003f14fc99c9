-- The latest snapshot of each session stream: its fold's state at `version`, so a command
-- decision or a runner step reads this row plus the events after it, never the whole stream.
-- `fold_version` names the fold that wrote `state`; a reader of another fold ignores the row and
-- rebuilds it. One row per stream, tenant-scoped like every other table.
-- CreateTable
CREATE TABLE "session_snapshots" (
    "tenant_id" UUID NOT NULL,
    "stream_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "fold_version" INTEGER NOT NULL,
    "state" JSON NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_snapshots_pkey" PRIMARY KEY ("tenant_id","stream_id")
);
