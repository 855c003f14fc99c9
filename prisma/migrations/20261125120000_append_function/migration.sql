-- One append in one statement (issue 18, ADR 0026): what the append transaction did in six
-- statements and four round trips (BEGIN, the stream lock, the position allocation, the
-- idempotency claim, the stream row, the insert with the hash chain, COMMIT), in the same order,
-- inside one function called as one statement (its own transaction). The hash chain is computed
-- here, over the same canonical bytes as libs/event-store/src/hash-chain.ts:
--   ["hub-event-v1",tenant,stream,position,event id,type,data text,metadata text,prev hash]
-- as JSON.stringify writes them (to_json escapes a string exactly as JSON.stringify does for
-- any text Postgres can hold); `hub audit verify` checks it in TypeScript, and a test compares
-- the two on awkward strings.
--
-- p_expected: the expected version, or -1 any, -2 no stream yet, -3 the stream exists.
-- Returns the first global position, the stream's version before the append, the events'
-- time and hashes; `duplicate` when the idempotency key was used (nothing written: the caller
-- reads the first append's events).
CREATE FUNCTION "hub_append"(
    p_tenant TEXT, p_stream TEXT, p_expected INTEGER, p_idempotency_key TEXT,
    p_event_ids TEXT[], p_types TEXT[], p_data TEXT[], p_metadata TEXT[]
) RETURNS TABLE (duplicate BOOLEAN, first_global BIGINT, version_before INTEGER, created_at TIMESTAMPTZ, hashes TEXT[])
LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER := cardinality(p_types);
    v_first BIGINT;
    v_version INTEGER;
    v_last_hash TEXT;
    v_prev TEXT;
    v_hashes TEXT[] := '{}';
    v_prevs TEXT[] := '{}';
    v_created TIMESTAMPTZ;
    v_claimed INTEGER;
BEGIN
    IF n IS NULL OR n < 1 THEN
        RAISE EXCEPTION 'hub_append: no events';
    END IF;
    -- The tenant this transaction acts for (row-level security reads it; harmless without).
    PERFORM set_config('hub.tenant_id', p_tenant, true);
    -- 0. The stream's lock first: stream order and global order agree (ADR 0007).
    PERFORM pg_advisory_xact_lock(4849, hashtext(p_tenant || '/' || p_stream));
    -- 1. The first write: the xid is assigned under the allocator's lock.
    v_first := hub_allocate_positions(n);
    -- 2. The idempotency claim before the stream row: an identical racing append waits for the
    --    first to commit, then finds the key taken.
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (tenant_id, key, stream_id, result)
        VALUES (p_tenant::uuid, p_idempotency_key, p_stream, jsonb_build_object('firstGlobalPosition', v_first, 'count', n))
        ON CONFLICT (tenant_id, key) DO NOTHING;
        GET DIAGNOSTICS v_claimed = ROW_COUNT;
        IF v_claimed = 0 THEN
            RETURN QUERY SELECT true, NULL::BIGINT, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT[];
            RETURN;
        END IF;
    END IF;
    -- 3. The stream row, locked (created at version 0 when new), and the expected version.
    INSERT INTO streams (tenant_id, stream_id, version) VALUES (p_tenant::uuid, p_stream, 0)
    ON CONFLICT (tenant_id, stream_id) DO UPDATE SET updated_at = streams.updated_at
    RETURNING streams.version, streams.last_hash INTO v_version, v_last_hash;
    IF NOT (p_expected = -1 OR (p_expected = -2 AND v_version = 0) OR (p_expected = -3 AND v_version > 0) OR p_expected = v_version) THEN
        RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, v_version, p_expected
            USING ERRCODE = 'HB409', DETAIL = v_version::text;
    END IF;
    -- 4. The chain, the events, the new head and the NOTIFY.
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
        SELECT v_first + i - 1, p_tenant::uuid, p_stream, v_version + i, p_event_ids[i]::uuid, p_types[i], p_data[i]::json, p_metadata[i]::json, v_hashes[i], v_prevs[i]
          FROM generate_series(1, n) AS i
        RETURNING events.created_at
    )
    SELECT max(ins.created_at) INTO v_created FROM ins;
    UPDATE streams SET version = v_version + n, last_hash = v_prev, updated_at = now()
     WHERE tenant_id = p_tenant::uuid AND stream_id = p_stream;
    PERFORM pg_notify('hub_events', (v_first + n - 1)::text);
    RETURN QUERY SELECT false, v_first, v_version, v_created, v_hashes;
END;
$$;
