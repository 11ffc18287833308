/**
 * `threadmill_lease`: the hot path in one round trip. It stores the
 * outcomes a worker finished, then leases up to `max` of the best ready
 * tasks of the first queue (in the order given) that is not paused, whose
 * limits leave room and has any; one statement, so one transaction. With
 * `max` 0 it only stores them: a stand-alone acknowledge.
 *
 * Arguments (positional):
 *   1 alias text;
 *   2 queues text[]; 3 pause_keys bigint[], 4 limit_keys bigint[]: each queue's
 *     pause and limit advisory locks (PostgresQueueLimits), in the order of queues;
 *   5 feed_key bigint: the alias's feed lock, shared as every writing transaction does;
 *   6 worker text; 7 max integer (0 leases nothing); 8 now bigint (ms, the server's clock: PostgresClock);
 *   9 lease_until bigint; 10 pool text (null: a lease without a pool);
 *   11 ids text[]: the finished records, 12 data text[] their serialized records,
 *   13 progress text[] the progress each carries (finishedProgress, or null),
 *   14 statuses text[], 15 names text[], 16 finished_at bigint[] (null: now; the caller sends nulls);
 *   17 expires_at bigint: when their results expire;
 *   18 finished_channel, 19 live_channel, 20 work_channel text (channelName).
 *
 * Reply: rows (kind, n, id, data, progress, wait_ms), in this order:
 *   'outcome' per finished record, n its index (1-based), data 'acknowledged',
 *     'stale' or 'already-stored' (AcknowledgeOutcome);
 *   'leased' per task leased, best first: its id, its record as now stored, its progress;
 *   'wait' once when a rate-limited queue was full: wait_ms until its window admits a start;
 *   'fallback' once when a ready task's data is no JSON Postgres reads: nothing
 *     was leased, and the caller leases in TypeScript, which fails that task.
 *
 * What it mirrors, written once in lib/lifecycle and pinned by the contract
 * suite and postgres-lease-function.spec.ts:
 *   - StoreRules.leased (unleased.ts leasedRecord): status RUNNING, startedAt
 *     kept or now, lastAttemptedAt now, the worker appended to workerIds;
 *   - StoreRules.limitRoom (limit-room.ts): the room a queue's concurrency
 *     leaves beside its running tasks, and its rate window beside its starts.
 *     The window is kept on the server's clock_timestamp(), read once the
 *     queue's limit lock is held, not on `now`: every pool shares one window
 *     whatever its reading of the clock. A limited queue's leases are dated
 *     on that time (startedAt, lastAttemptedAt), as the window counts them;
 *   - acknowledge: a finished record is stored only while its task is
 *     running, in id order, else it is already stored or stale; its result
 *     dated `now`, kept until `expires_at`, with its own progress or else
 *     the row's; no unique key is touched (a key's hold reads its holder's
 *     state, final once stored).
 * Per task it takes a handful of statements, each by an index: the
 * finished row deleted and its result stored; the best ready rows read and
 * locked in one statement, their data read as JSON (only that is guarded,
 * so the block holds no writes), each updated by its key.
 * Plans: the defaults, as a custom plan keeps the ready rows' LIMIT known.
 * Times are epoch ms, as serializeRecord writes them.
 *
 * @internal
 */
export function leaseFunction(s: string): string {
  return `
CREATE OR REPLACE FUNCTION ${s}.threadmill_lease(
  p_alias text, p_queues text[], p_pause_keys bigint[], p_limit_keys bigint[], p_feed_key bigint,
  p_worker text, p_max integer, p_now bigint, p_lease_until bigint, p_pool text,
  p_ids text[], p_data text[], p_progress text[], p_statuses text[], p_names text[],
  p_finished_at bigint[], p_expires_at bigint,
  p_finished_channel text, p_live_channel text, p_work_channel text)
RETURNS TABLE (kind text, n integer, id text, data text, progress text, wait_ms bigint)
LANGUAGE plpgsql
AS $fn$
#variable_conflict use_column
DECLARE
  i integer;
  qi integer;
  q text;
  held record;
  lim text;
  conc integer;
  rate_max integer;
  per_ms bigint;
  rate_now bigint;
  lease_now bigint;
  room bigint;
  wait bigint;
  least_wait bigint := 0;
  starts bigint[];
  started integer;
  most integer;
  leased_json jsonb;
  acks integer[];
  picked_ids text[];
  picked_data text[];
  picked_progress text[];
  picked_names text[];
  listened_finished boolean;
  listened_live boolean;
  leased_attempts integer[] := '{}';
  leased_ids text[] := '{}';
  leased_data text[] := '{}';
  leased_progress text[] := '{}';
  finished jsonb[] := '{}';
  live jsonb[] := '{}';
  freed text[] := '{}';
  fell_back boolean := false;
  chunk text;
  item jsonb;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(p_feed_key);
  -- Each feed's events are built only while it has a live listener.
  listened_finished := cardinality(p_ids) > 0 AND EXISTS (SELECT 1
    FROM ${s}.threadmill_feed_listeners fl
    WHERE fl.alias = p_alias AND fl.feed = 'finished' AND fl.expires_at > p_now);
  listened_live := p_max > 0 AND EXISTS (SELECT 1 FROM ${s}.threadmill_feed_listeners fl
    WHERE fl.alias = p_alias AND fl.feed = 'live' AND fl.expires_at > p_now);

  -- Acknowledge, in id order (rows locked in one order), each only while its task runs.
  IF cardinality(p_ids) > 1 THEN
    SELECT array_agg(o.n ORDER BY o.id COLLATE "C", o.n) INTO acks
      FROM unnest(p_ids) WITH ORDINALITY AS o(id, n);
  ELSE
    acks := CASE WHEN cardinality(p_ids) = 1 THEN '{1}'::integer[] ELSE '{}' END;
  END IF;
  FOREACH i IN ARRAY acks LOOP
    DELETE FROM ${s}.threadmill_tasks t
      WHERE t.alias = p_alias AND t.id = p_ids[i] AND t.state = 'running'
      RETURNING t.queue, t.progress INTO held;
    kind := 'outcome'; n := i; id := p_ids[i]; progress := NULL; wait_ms := NULL;
    IF FOUND THEN
      INSERT INTO ${s}.threadmill_results AS r
        (alias, id, queue, name, status, finished_at, expires_at, progress, data)
      VALUES (p_alias, p_ids[i], held.queue, p_names[i], p_statuses[i],
        coalesce(p_finished_at[i], p_now), p_expires_at, coalesce(p_progress[i], held.progress),
        p_data[i])
      ON CONFLICT ON CONSTRAINT threadmill_results_pkey DO UPDATE SET
        queue = excluded.queue, name = excluded.name, status = excluded.status,
        finished_at = excluded.finished_at, expires_at = excluded.expires_at,
        progress = excluded.progress, data = excluded.data;
      IF listened_finished THEN
        finished := finished || jsonb_build_object('id', p_ids[i], 'name', p_names[i],
          'queue', held.queue, 'status', p_statuses[i]);
      END IF;
      freed := array_append(freed, held.queue);
      data := 'acknowledged';
    ELSIF EXISTS (SELECT 1 FROM ${s}.threadmill_results r WHERE r.alias = p_alias
        AND r.id = p_ids[i] AND r.expires_at > p_now AND r.data = p_data[i]) THEN
      data := 'already-stored';
    ELSE
      data := 'stale';
    END IF;
    RETURN NEXT;
  END LOOP;

  -- Lease: nothing leased when a task's data is no JSON (the caller then leases in TypeScript).
  IF p_max > 0 THEN
      FOR qi IN 1 .. coalesce(array_length(p_queues, 1), 0) LOOP
        q := p_queues[qi];
        PERFORM pg_advisory_xact_lock_shared(p_pause_keys[qi]);
        most := p_max;
        lease_now := p_now;
        SELECT l.limits INTO lim FROM ${s}.threadmill_queue_limits l
          WHERE l.alias = p_alias AND l.queue = q;
        conc := coalesce(split_part(lim, ' ', 1)::integer, 0);
        rate_max := coalesce(split_part(lim, ' ', 2)::integer, 0);
        per_ms := coalesce(split_part(lim, ' ', 3)::bigint, 0);
        IF rate_max <= 0 OR per_ms <= 0 THEN rate_max := 0; END IF;
        IF conc > 0 OR rate_max > 0 THEN
          PERFORM pg_advisory_xact_lock(p_limit_keys[qi]);
          -- One window for every pool: the server's own clock, read under the limit lock.
          rate_now := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
          -- Its starts are dated on that clock too, as the window counts them.
          lease_now := rate_now;
          room := 2147483647;
          IF conc > 0 THEN
            room := conc - (SELECT count(*) FROM ${s}.threadmill_tasks t
              WHERE t.alias = p_alias AND t.queue = q AND t.state = 'running');
          END IF;
          wait := 0;
          IF rate_max > 0 THEN
            DELETE FROM ${s}.threadmill_queue_starts st
              WHERE st.alias = p_alias AND st.queue = q AND st.at <= rate_now - per_ms;
            SELECT coalesce(array_agg(st.at ORDER BY st.at), '{}') INTO starts
              FROM ${s}.threadmill_queue_starts st WHERE st.alias = p_alias AND st.queue = q;
            IF rate_max - cardinality(starts) <= 0 AND room > 0 THEN
              wait := greatest(1, starts[cardinality(starts) - rate_max + 1] + per_ms - rate_now);
            END IF;
            room := least(room, rate_max - cardinality(starts));
          END IF;
          IF room <= 0 THEN
            IF wait > 0 THEN
              least_wait := CASE WHEN least_wait = 0 THEN wait ELSE least(least_wait, wait) END;
            END IF;
            CONTINUE;
          END IF;
          most := least(p_max, room);
        END IF;
        SELECT array_agg(r.id ORDER BY r.score, r.seq), array_agg(r.data ORDER BY r.score, r.seq),
            array_agg(r.progress ORDER BY r.score, r.seq), array_agg(r.name ORDER BY r.score, r.seq)
          INTO picked_ids, picked_data, picked_progress, picked_names
          FROM (SELECT t.id, t.data, t.progress, t.name, t.score, t.seq
            FROM ${s}.threadmill_tasks t
            WHERE t.alias = p_alias AND t.queue = q AND t.state = 'ready'
              AND NOT EXISTS (SELECT 1 FROM ${s}.threadmill_paused_queues pq
                WHERE pq.alias = p_alias AND pq.queue = q)
            ORDER BY t.score, t.seq LIMIT most FOR UPDATE SKIP LOCKED) r;
        started := coalesce(cardinality(picked_ids), 0);
        CONTINUE WHEN started = 0;
        -- Only the reading is guarded (no writes in the block, so no subtransaction id).
        BEGIN
          FOR i IN 1 .. started LOOP
            leased_json := picked_data[i]::jsonb;
            leased_json := leased_json || jsonb_build_object('status', 'RUNNING',
              'startedAt', coalesce(nullif(leased_json -> 'startedAt', 'null'::jsonb), to_jsonb(lease_now)),
              'lastAttemptedAt', lease_now,
              'workerIds', coalesce(leased_json -> 'workerIds', '[]'::jsonb) || to_jsonb(p_worker));
            leased_data := array_append(leased_data, leased_json::text);
            leased_attempts := array_append(leased_attempts,
              jsonb_array_length(leased_json -> 'workerIds'));
          END LOOP;
        EXCEPTION WHEN invalid_text_representation OR untranslatable_character
            OR character_not_in_repertoire OR invalid_parameter_value THEN
          fell_back := true;
          leased_data := '{}';
          least_wait := 0;
          EXIT;
        END;
        -- Row by row, each by its key: a join with the arrays could be planned as a scan.
        FOR i IN 1 .. started LOOP
          UPDATE ${s}.threadmill_tasks t SET state = 'running', lease_until = p_lease_until,
              pool = p_pool, attempts = leased_attempts[i], data = leased_data[i]
            WHERE t.alias = p_alias AND t.id = picked_ids[i];
        END LOOP;
        leased_ids := picked_ids;
        leased_progress := picked_progress;
        IF listened_live THEN
          FOR i IN 1 .. started LOOP
            live := live || jsonb_build_object('event', 'started', 'id', picked_ids[i],
              'queue', q, 'name', picked_names[i]);
          END LOOP;
        END IF;
        IF rate_max > 0 THEN
          INSERT INTO ${s}.threadmill_queue_starts (alias, queue, at)
            SELECT p_alias, q, rate_now FROM generate_series(1, started);
        END IF;
        EXIT;
      END LOOP;
  END IF;

  FOR i IN 1 .. cardinality(leased_ids) LOOP
    kind := 'leased'; n := i; id := leased_ids[i]; data := leased_data[i];
    progress := leased_progress[i]; wait_ms := NULL;
    RETURN NEXT;
  END LOOP;
  IF least_wait > 0 THEN
    kind := 'wait'; n := NULL; id := NULL; data := NULL; progress := NULL; wait_ms := least_wait;
    RETURN NEXT;
  END IF;
  IF fell_back THEN
    kind := 'fallback'; n := NULL; id := NULL; data := NULL; progress := NULL; wait_ms := NULL;
    RETURN NEXT;
  END IF;

  -- A finished task of a queue with a concurrency limit frees room: its idle consumers look again.
  IF cardinality(freed) > 0 THEN
    PERFORM pg_notify(p_work_channel, fq) FROM (SELECT DISTINCT unnest(freed) AS fq) f
      WHERE EXISTS (SELECT 1 FROM ${s}.threadmill_queue_limits l
        WHERE l.alias = p_alias AND l.queue = f.fq AND l.limits NOT LIKE '0 %');
  END IF;
  -- The feeds, each only while a listener of it is live, in payloads under 8,000 bytes.
  IF cardinality(finished) > 0 THEN
    chunk := NULL;
    FOREACH item IN ARRAY finished LOOP
      IF chunk IS NOT NULL AND octet_length(chunk) + octet_length(item::text) > 7000 THEN
        PERFORM pg_notify(p_finished_channel, '[' || chunk || ']');
        chunk := NULL;
      END IF;
      chunk := CASE WHEN chunk IS NULL THEN item::text ELSE chunk || ',' || item::text END;
    END LOOP;
    PERFORM pg_notify(p_finished_channel, '[' || chunk || ']');
  END IF;
  IF cardinality(live) > 0 THEN
    chunk := NULL;
    FOREACH item IN ARRAY live LOOP
      IF chunk IS NOT NULL AND octet_length(chunk) + octet_length(item::text) > 7000 THEN
        PERFORM pg_notify(p_live_channel, '[' || chunk || ']');
        chunk := NULL;
      END IF;
      chunk := CASE WHEN chunk IS NULL THEN item::text ELSE chunk || ',' || item::text END;
    END LOOP;
    PERFORM pg_notify(p_live_channel, '[' || chunk || ']');
  END IF;
END
$fn$`;
}
