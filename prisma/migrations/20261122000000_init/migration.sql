-- CreateTable
CREATE TABLE "tenants" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "streams" (
    "tenant_id" UUID NOT NULL,
    "stream_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "streams_pkey" PRIMARY KEY ("tenant_id","stream_id")
);

-- CreateTable
CREATE TABLE "events" (
    "global_position" BIGINT NOT NULL,
    "tenant_id" UUID NOT NULL,
    "stream_id" TEXT NOT NULL,
    "stream_position" INTEGER NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSON NOT NULL,
    "metadata" JSON NOT NULL,
    "transaction_id" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("global_position")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "tenant_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "stream_id" TEXT NOT NULL,
    "result" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("tenant_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "events_event_id_key" ON "events"("event_id");

-- CreateIndex
CREATE INDEX "events_transaction_id_global_position_idx" ON "events"("transaction_id", "global_position");

-- CreateIndex
CREATE INDEX "events_tenant_id_global_position_idx" ON "events"("tenant_id", "global_position");

-- CreateIndex
CREATE INDEX "events_tenant_id_stream_id_global_position_idx" ON "events"("tenant_id", "stream_id", "global_position");

-- CreateIndex
CREATE UNIQUE INDEX "events_tenant_id_stream_id_stream_position_key" ON "events"("tenant_id", "stream_id", "stream_position");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Not in schema.prisma (Prisma models neither sequences without a column default nor
-- functions): the global position allocator. See libs/event-store/README.md, "Global order".
CREATE SEQUENCE "events_global_position_seq" AS BIGINT START WITH 1 MINVALUE 1 NO CYCLE;

-- Allocates `n` consecutive global positions and returns the first. The caller's transaction
-- must not have an xid yet: the xid is assigned here, under the same lock that hands out the
-- positions, so position order and transaction-id order agree across all appenders. The lock
-- is session-level and held for three cheap calls only, so appends still commit concurrently.
CREATE FUNCTION "hub_allocate_positions"(n INTEGER) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    first_position BIGINT;
BEGIN
    IF n IS NULL OR n < 1 THEN
        RAISE EXCEPTION 'hub_allocate_positions: n must be at least 1, got %', n;
    END IF;
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'hub_allocate_positions must be the first write of its transaction';
    END IF;
    PERFORM pg_advisory_lock(4849424556);
    BEGIN
        PERFORM pg_current_xact_id();
        first_position := nextval('events_global_position_seq');
        IF n > 1 THEN
            PERFORM setval('events_global_position_seq', first_position + n - 1, true);
        END IF;
    EXCEPTION WHEN query_canceled OR others THEN
        -- A session-level lock outlives the failed statement; without this every later
        -- append would wait on it forever.
        PERFORM pg_advisory_unlock(4849424556);
        RAISE;
    END;
    PERFORM pg_advisory_unlock(4849424556);
    RETURN first_position;
END;
$$;
