/**
 * `threadmill_enqueue`: new tasks stored in one round trip, as the lease
 * is. It inserts the records given (ready, or deferred until their run_at),
 * refuses each whose id is taken, counts the stored ones as ingress and
 * announces them; one statement, so alone it is one transaction, and inside
 * a caller's transaction (a keyed enqueue's, the app's) one step of it.
 * What a record becomes (its score, due time, data) and every unique-key
 * rule are decided in TypeScript before the call; this only stores.
 *
 * Arguments (positional):
 *   1 alias text;
 *   2 feed_key bigint: the alias's feed lock, taken shared as every writing
 *     transaction does (null: the caller's transaction holds it, or it is the app's);
 *   3 listened boolean: the live feed is told only while a listener of it is
 *     live (false: always, as in the app's transaction, which takes no feed lock);
 *   4 all_or_none boolean: one refusal stores none (the stored rows of this call go);
 *   5 apart boolean: the stored tasks are counted as ingress in rows of their own
 *     (threadmill_ingress_pending, a plain insert), not in the shared row of their queue and
 *     second, which would stay locked until the app's transaction ends;
 *   6 ids, 7 queues, 8 names text[]; 9 scores bigint[]; 10 run_at bigint[] (null: ready);
 *   11 attempts integer[]: the records, in order; 12 data json: their serialized records, a
 *     JSON array of strings (JSON.stringify escapes them far faster than pg's text[] literal);
 *   13 now bigint (ms, the server's clock: PostgresClock);
 *   14 live_channel, 15 work_channel text (channelName).
 *
 * Reply: a row (n, data, progress) per refused record, n its index (1-based),
 * data and progress those of the task that holds the id (a live task, or a
 * result still kept, which refuses its id too); no row: every one stored.
 *
 * An id is inserted first (ON CONFLICT DO NOTHING waits for a transaction
 * that holds it) and only then checked against the results, so an id
 * finishing at the same moment is never stored twice. Notifications: the
 * work channel gets each queue that got a ready task; the live feed an
 * 'enqueued' event per stored task, in payloads under 8,000 bytes.
 *
 * @internal
 */
export function enqueueFunction(s: string): string {
  return `
CREATE FUNCTION ${s}.threadmill_enqueue(
  p_alias text, p_feed_key bigint, p_listened boolean, p_all_or_none boolean, p_apart boolean,
  p_ids text[], p_queues text[], p_names text[], p_scores bigint[], p_run_at bigint[],
  p_attempts integer[], p_data json, p_now bigint, p_live_channel text, p_work_channel text)
RETURNS TABLE (n integer, data text, progress text)
LANGUAGE plpgsql
-- Plans made once per connection: a custom plan, which the arrays' sizes would keep
-- Postgres choosing, is made again at every call and costs more than the call itself.
SET plan_cache_mode = force_generic_plan SET jit = off
AS $fn$
#variable_conflict use_column
DECLARE
  refused integer[];
  undone text[];
  stored text[];
  chunk text;
  item text;
BEGIN
  IF p_feed_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock_shared(p_feed_key);
  END IF;

  -- Refused: an id not inserted (a live task holds it), or inserted while a kept result has it
  -- (\`kept\`: null when not inserted).
  WITH inserted AS (
    INSERT INTO ${s}.threadmill_tasks AS t
      (alias, id, queue, name, state, score, run_at, attempts, data)
    SELECT p_alias, g.id, g.queue, g.name,
      CASE WHEN g.run_at IS NULL THEN 'ready' ELSE 'deferred' END,
      g.score, g.run_at, g.attempts, g.data
    FROM unnest(p_ids, p_queues, p_names, p_scores, p_run_at, p_attempts, ARRAY(
        SELECT d.e FROM json_array_elements_text(p_data) WITH ORDINALITY AS d(e, n) ORDER BY d.n))
      WITH ORDINALITY AS g(id, queue, name, score, run_at, attempts, data, n)
    ORDER BY g.n
    ON CONFLICT (alias, id) DO NOTHING
    RETURNING t.id),
  -- Materialized: each record's result looked up once (inlined, once per reference).
  checked AS MATERIALIZED (
    SELECT g.id, g.n, CASE WHEN i.id IS NULL THEN NULL ELSE EXISTS (
        SELECT 1 FROM ${s}.threadmill_results r
        WHERE r.alias = p_alias AND r.id = g.id AND r.expires_at > p_now) END AS kept
    FROM unnest(p_ids) WITH ORDINALITY AS g(id, n)
    LEFT JOIN inserted i ON i.id = g.id)
  SELECT coalesce(array_agg(c.n ORDER BY c.n) FILTER (WHERE c.kept IS NOT FALSE), '{}'),
    coalesce(array_agg(c.id) FILTER (WHERE c.kept), '{}'),
    coalesce(array_agg(c.id) FILTER (WHERE c.kept IS NOT NULL), '{}')
  INTO refused, undone, stored
  FROM checked c;

  IF cardinality(refused) > 0 THEN
    -- What refuses each: its kept result when its row went in, else the live task, else a result.
    RETURN QUERY SELECT g.n::integer,
        CASE WHEN lt.data IS NULL OR g.id = ANY(undone) THEN kr.data ELSE lt.data END,
        CASE WHEN lt.data IS NULL OR g.id = ANY(undone) THEN kr.progress ELSE lt.progress END
      FROM (SELECT p_ids[r.n] AS id, r.n FROM unnest(refused) AS r(n)) g
      LEFT JOIN ${s}.threadmill_tasks lt ON lt.alias = p_alias AND lt.id = g.id
      LEFT JOIN ${s}.threadmill_results kr ON kr.alias = p_alias AND kr.id = g.id
        AND kr.expires_at > p_now
      ORDER BY g.n;
    DELETE FROM ${s}.threadmill_tasks t WHERE t.alias = p_alias
      AND t.id = ANY(CASE WHEN p_all_or_none THEN stored ELSE undone END);
    IF p_all_or_none THEN
      RETURN;
    END IF;
  END IF;

  IF p_apart THEN
    INSERT INTO ${s}.threadmill_ingress_pending (alias, queue, second, count)
    SELECT p_alias, m.queue, p_now / 1000, count(*)
    FROM unnest(p_queues) WITH ORDINALITY AS m(queue, n)
    WHERE NOT m.n = ANY(refused)
    GROUP BY m.queue;
  ELSE
    INSERT INTO ${s}.threadmill_ingress_counts AS c (alias, queue, second, count)
    SELECT p_alias, m.queue, p_now / 1000, count(*)
    FROM unnest(p_queues) WITH ORDINALITY AS m(queue, n)
    WHERE NOT m.n = ANY(refused)
    GROUP BY m.queue
    ON CONFLICT (alias, queue, second) DO UPDATE SET count = c.count + excluded.count;
  END IF;

  PERFORM pg_notify(p_work_channel, w.queue) FROM (SELECT DISTINCT m.queue
    FROM unnest(p_queues, p_run_at) WITH ORDINALITY AS m(queue, run_at, n)
    WHERE m.run_at IS NULL AND NOT m.n = ANY(refused)) w;

  IF NOT p_listened OR EXISTS (SELECT 1 FROM ${s}.threadmill_feed_listeners fl
      WHERE fl.alias = p_alias AND fl.feed = 'live' AND fl.expires_at > p_now) THEN
    chunk := NULL;
    FOR item IN SELECT json_build_object('event', 'enqueued', 'id', m.id, 'queue', m.queue,
          'name', m.name)::text
        FROM unnest(p_ids, p_queues, p_names) WITH ORDINALITY AS m(id, queue, name, n)
        WHERE NOT m.n = ANY(refused) ORDER BY m.n LOOP
      IF chunk IS NOT NULL AND octet_length(chunk) + octet_length(item) > 7000 THEN
        PERFORM pg_notify(p_live_channel, '[' || chunk || ']');
        chunk := NULL;
      END IF;
      chunk := CASE WHEN chunk IS NULL THEN item ELSE chunk || ',' || item END;
    END LOOP;
    IF chunk IS NOT NULL THEN
      PERFORM pg_notify(p_live_channel, '[' || chunk || ']');
    END IF;
  END IF;
END
$fn$`;
}
