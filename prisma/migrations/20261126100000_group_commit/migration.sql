-- Group commit (issue 31, ADR 0030): appends of many streams that are ready at the same moment
-- go to Postgres as one statement and one transaction (one commit, one WAL flush, one NOTIFY),
-- each keeping what an append alone guarantees: its stream's lock, its expected version, its
-- idempotency key, its hash chain, its tenant (row-level security) and "durable before any
-- watcher sees it".
--
-- hub_append_item: what one append does once its stream is locked and its positions are
-- allocated (ADR 0026's steps 2-4): the idempotency claim, the stream row and the expected
-- version, the chain, the events and the new head. It never raises for an expected outcome:
--   'ok'        written; version_before is the stream's version before it
--   'duplicate' the idempotency key was used (nothing written; the caller reads the first append)
--   'conflict'  the stream is at version_before, not the expected version (nothing written)
-- so a batch of many appends needs no subtransaction per item (more than 64 in one transaction
-- would overflow every backend's subtransaction cache and slow every snapshot on the server).
CREATE FUNCTION "hub_append_item"(
    p_tenant TEXT, p_stream TEXT, p_expected INTEGER, p_idempotency_key TEXT, p_first BIGINT,
    p_event_ids TEXT[], p_types TEXT[], p_data TEXT[], p_metadata TEXT[]
) RETURNS TABLE (status TEXT, version_before INTEGER, created_at TIMESTAMPTZ, hashes TEXT[])
LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER := cardinality(p_types);
    v_version INTEGER;
    v_last_hash TEXT;
    v_prev TEXT;
    v_hashes TEXT[] := '{}';
    v_prevs TEXT[] := '{}';
    v_created TIMESTAMPTZ;
    v_claimed INTEGER;
BEGIN
    IF n IS NULL OR n < 1 THEN
        RAISE EXCEPTION 'hub_append_item: no events';
    END IF;
    -- The tenant these statements act for (row-level security reads it).
    PERFORM set_config('hub.tenant_id', p_tenant, true);
    -- The idempotency claim before the stream row: an identical racing append waits for the
    -- first to commit, then finds the key taken.
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (tenant_id, key, stream_id, result)
        VALUES (p_tenant::uuid, p_idempotency_key, p_stream, jsonb_build_object('firstGlobalPosition', p_first, 'count', n))
        ON CONFLICT (tenant_id, key) DO NOTHING;
        GET DIAGNOSTICS v_claimed = ROW_COUNT;
        IF v_claimed = 0 THEN
            RETURN QUERY SELECT 'duplicate'::TEXT, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT[];
            RETURN;
        END IF;
    END IF;
    -- The stream row, locked (created at version 0 when new), and the expected version.
    INSERT INTO streams (tenant_id, stream_id, version) VALUES (p_tenant::uuid, p_stream, 0)
    ON CONFLICT (tenant_id, stream_id) DO UPDATE SET updated_at = streams.updated_at
    RETURNING streams.version, streams.last_hash INTO v_version, v_last_hash;
    IF NOT (p_expected = -1 OR (p_expected = -2 AND v_version = 0) OR (p_expected = -3 AND v_version > 0) OR p_expected = v_version) THEN
        -- Nothing of this append may stay, as nothing of a failed append alone does: its claim
        -- goes, and so does the stream row if this made it (no append leaves one at version 0).
        IF p_idempotency_key IS NOT NULL THEN
            DELETE FROM idempotency_keys WHERE tenant_id = p_tenant::uuid AND key = p_idempotency_key;
        END IF;
        IF v_version = 0 THEN
            DELETE FROM streams WHERE tenant_id = p_tenant::uuid AND stream_id = p_stream AND version = 0;
        END IF;
        RETURN QUERY SELECT 'conflict'::TEXT, v_version, NULL::TIMESTAMPTZ, NULL::TEXT[];
        RETURN;
    END IF;
    -- The chain (the same canonical bytes as hash-chain.ts), the events and the new head.
    v_prev := v_last_hash;
    FOR i IN 1..n LOOP
        v_prevs := v_prevs || v_prev;
        v_prev := encode(sha256(convert_to(
            '["hub-event-v1",' || to_json(p_tenant)::text || ',' || to_json(p_stream)::text || ',' || (v_version + i)::text || ','
            || to_json(p_event_ids[i])::text || ',' || to_json(p_types[i])::text || ',' || to_json(p_data[i])::text || ','
            || to_json(p_metadata[i])::text || ',' || COALESCE(to_json(v_prevs[i])::text, 'null') || ']', 'UTF8')), 'hex');
        v_hashes := v_hashes || v_prev;
    END LOOP;
    WITH ins AS (
        INSERT INTO events (global_position, tenant_id, stream_id, stream_position, event_id, type, data, metadata, hash, prev_hash)
        SELECT p_first + i - 1, p_tenant::uuid, p_stream, v_version + i, p_event_ids[i]::uuid, p_types[i], p_data[i]::json, p_metadata[i]::json, v_hashes[i], v_prevs[i]
          FROM generate_series(1, n) AS i
        RETURNING events.created_at
    )
    SELECT max(ins.created_at) INTO v_created FROM ins;
    UPDATE streams SET version = v_version + n, last_hash = v_prev, updated_at = now()
     WHERE tenant_id = p_tenant::uuid AND stream_id = p_stream;
    RETURN QUERY SELECT 'ok'::TEXT, v_version, v_created, v_hashes;
END;
$$;

-- One append alone, as before (ADR 0026), now through hub_append_item: one copy of the steps.
CREATE OR REPLACE FUNCTION "hub_append"(
    p_tenant TEXT, p_stream TEXT, p_expected INTEGER, p_idempotency_key TEXT,
    p_event_ids TEXT[], p_types TEXT[], p_data TEXT[], p_metadata TEXT[]
) RETURNS TABLE (duplicate BOOLEAN, first_global BIGINT, version_before INTEGER, created_at TIMESTAMPTZ, hashes TEXT[])
LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER := cardinality(p_types);
    v_first BIGINT;
    r RECORD;
BEGIN
    IF n IS NULL OR n < 1 THEN
        RAISE EXCEPTION 'hub_append: no events';
    END IF;
    PERFORM set_config('hub.tenant_id', p_tenant, true);
    -- 0. The stream's lock first: stream order and global order agree (ADR 0007).
    PERFORM pg_advisory_xact_lock(4849, hashtext(p_tenant || '/' || p_stream));
    -- 1. The first write: the xid is assigned under the allocator's lock.
    v_first := hub_allocate_positions(n);
    SELECT * INTO r FROM hub_append_item(p_tenant, p_stream, p_expected, p_idempotency_key, v_first, p_event_ids, p_types, p_data, p_metadata);
    IF r.status = 'duplicate' THEN
        RETURN QUERY SELECT true, NULL::BIGINT, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT[];
        RETURN;
    END IF;
    IF r.status = 'conflict' THEN
        -- Raised: the whole statement (the claim and a new stream row included) rolls back.
        RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, r.version_before, p_expected
            USING ERRCODE = 'HB409', DETAIL = r.version_before::text;
    END IF;
    PERFORM pg_notify('hub_events', (v_first + n - 1)::text);
    RETURN QUERY SELECT false, v_first, r.version_before, r.created_at, r.hashes;
END;
$$;

-- Many appends in one transaction. Item i is p_streams[i] of p_tenants[i] with p_counts[i]
-- events, taken in order from the flattened event arrays. Steps, as for one append:
-- 0. every stream's lock, in one fixed order (two batches never wait on each other in a cycle);
-- 1. positions for every event of the batch, the first write (the xid under the allocator's
--    lock); an item that does not write leaves its positions unused (a gap, as a rolled-back
--    append leaves one: readers follow positions, never count them);
-- 2. each item in arrival order (two appends of one stream in one batch behave as one after the
--    other: the second sees the first's version);
-- 3. one NOTIFY for the batch, at its highest position.
CREATE FUNCTION "hub_append_batch"(
    p_tenants TEXT[], p_streams TEXT[], p_expected INTEGER[], p_idempotency_keys TEXT[], p_counts INTEGER[],
    p_event_ids TEXT[], p_types TEXT[], p_data TEXT[], p_metadata TEXT[]
) RETURNS TABLE (item INTEGER, status TEXT, first_global BIGINT, version_before INTEGER, created_at TIMESTAMPTZ)
LANGUAGE plpgsql AS $$
DECLARE
    n_items INTEGER := cardinality(p_streams);
    v_total INTEGER;
    v_first BIGINT;
    v_at INTEGER := 0;
    v_count INTEGER;
    v_key INTEGER;
    r RECORD;
BEGIN
    IF n_items IS NULL OR n_items < 1 THEN
        RAISE EXCEPTION 'hub_append_batch: no appends';
    END IF;
    SELECT sum(c) INTO v_total FROM unnest(p_counts) AS c;
    IF v_total IS NULL OR v_total <> cardinality(p_types) OR EXISTS (SELECT 1 FROM unnest(p_counts) AS c WHERE c IS NULL OR c < 1) THEN
        RAISE EXCEPTION 'hub_append_batch: counts do not match the events';
    END IF;
    FOR v_key IN SELECT DISTINCT hashtext(p_tenants[i] || '/' || p_streams[i]) AS k FROM generate_series(1, n_items) AS i ORDER BY k LOOP
        PERFORM pg_advisory_xact_lock(4849, v_key);
    END LOOP;
    v_first := hub_allocate_positions(v_total);
    FOR i IN 1..n_items LOOP
        v_count := p_counts[i];
        SELECT * INTO r FROM hub_append_item(
            p_tenants[i], p_streams[i], p_expected[i], p_idempotency_keys[i], v_first + v_at,
            p_event_ids[v_at + 1 : v_at + v_count], p_types[v_at + 1 : v_at + v_count],
            p_data[v_at + 1 : v_at + v_count], p_metadata[v_at + 1 : v_at + v_count]);
        item := i;
        status := r.status;
        first_global := v_first + v_at;
        version_before := r.version_before;
        created_at := r.created_at;
        RETURN NEXT;
        v_at := v_at + v_count;
    END LOOP;
    PERFORM pg_notify('hub_events', (v_first + v_total - 1)::text);
END;
$$;
