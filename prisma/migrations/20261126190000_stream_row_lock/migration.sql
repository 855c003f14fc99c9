-- An append locks its stream row without writing a new version of it (issue 31): the upsert
-- that locked it wrote a dead row per append besides the head's update. Everything else of
-- hub_append_item (20261126100000_group_commit) is as it was.
CREATE OR REPLACE FUNCTION "hub_append_item"(
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
    -- The stream row, locked (created at version 0 when new), and the expected version. Locked
    -- with FOR UPDATE, which writes no new row version: the upsert this replaces wrote one per
    -- append on top of the head's update below (two dead rows an append, half of all the rows a
    -- streaming crowd wrote). A row made by a racing writer that does not hold the stream's
    -- advisory lock (a transactional append) is waited for by the insert and then locked.
    SELECT s.version, s.last_hash INTO v_version, v_last_hash FROM streams s
     WHERE s.tenant_id = p_tenant::uuid AND s.stream_id = p_stream FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO streams (tenant_id, stream_id, version) VALUES (p_tenant::uuid, p_stream, 0)
        ON CONFLICT (tenant_id, stream_id) DO NOTHING;
        SELECT s.version, s.last_hash INTO v_version, v_last_hash FROM streams s
         WHERE s.tenant_id = p_tenant::uuid AND s.stream_id = p_stream FOR UPDATE;
    END IF;
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
