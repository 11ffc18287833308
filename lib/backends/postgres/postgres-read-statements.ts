import { STATE_COLUMN, type TaskState } from './postgres-schema';

/** A row one page of a segment examines. */
export interface ListedRow {
  score: number;
  tie: number;
  id: string;
  /** Null when the row is of another name than the one asked for (left unread). */
  data: string | null;
  progress: string | null;
}

/** A bucket's count. */
export interface BucketRow {
  bucket: number;
  count: number;
}

/**
 * The statements that only read, for one schema: peek, pages of a segment
 * from a cursor (a row comparison on the column and tie-break its index
 * orders, so a page deep in a million tasks costs what the first does),
 * telemetry counts, activity per bucket, the maintenance heartbeat.
 *
 * @internal
 */
export class PostgresReadStatements {
  readonly peekTasks: Record<TaskState, string>;
  readonly peekResults: string;
  /** Per state: $1 alias, $2 queue, $3 name or null, $4 rows, then $5 score and $6 tie after a cursor. */
  readonly pageTasks: Record<TaskState, { first: string; after: string }>;
  /** $1 alias, $2 queue, $3 name or null, $4 rows, $5 status, $6 since, $7 now, then $8 score, $9 tie. */
  readonly pageResults: { first: string; after: string };
  readonly counts: string;
  readonly ingressBuckets: string;
  readonly resultBuckets: string;
  readonly sampleResults: string;
  readonly readMeta: string;
  readonly writeMeta: string;
  readonly selectTaskOrResult: string;

  constructor(s: string) {
    // Ingress: the shared rows, and those of enqueues in an app's transaction not folded in yet.
    const ingress = `(SELECT alias, queue, second, count FROM ${s}.threadmill_ingress_counts
      UNION ALL SELECT alias, queue, second, count FROM ${s}.threadmill_ingress_pending) AS ingress`;
    const peekTask = (state: TaskState) => `
      SELECT id, data, progress FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND queue = $2 AND state = '${state}'
      ORDER BY ${STATE_COLUMN[state]}, seq LIMIT $3`;
    this.peekTasks = {
      ready: peekTask('ready'),
      running: peekTask('running'),
      deferred: peekTask('deferred'),
    };
    // Newest first: what an operator looking at history wants to see.
    this.peekResults = `
      SELECT id, data, progress FROM ${s}.threadmill_results
      WHERE alias = $1 AND queue = $2 AND status = $3 AND finished_at >= $4 AND expires_at > $5
      ORDER BY finished_at DESC, seq DESC LIMIT $6`;
    const named = `CASE WHEN $3::text IS NULL OR name = $3::text THEN data END`;
    const pageTask = (state: TaskState, after: boolean) => {
      const column = STATE_COLUMN[state];
      return `
        SELECT ${column} AS score, seq AS tie, id, ${named} AS data, progress
        FROM ${s}.threadmill_tasks
        WHERE alias = $1 AND queue = $2 AND state = '${state}'
          ${after ? `AND (${column}, seq) > ($5::bigint, $6::bigint)` : ''}
        ORDER BY ${column}, seq LIMIT $4`;
    };
    this.pageTasks = {
      ready: { first: pageTask('ready', false), after: pageTask('ready', true) },
      running: { first: pageTask('running', false), after: pageTask('running', true) },
      deferred: { first: pageTask('deferred', false), after: pageTask('deferred', true) },
    };
    const pageResult = (after: boolean) => `
      SELECT finished_at AS score, seq AS tie, id,
        CASE WHEN expires_at > $7 THEN ${named} END AS data, progress
      FROM ${s}.threadmill_results
      WHERE alias = $1 AND queue = $2 AND status = $5 AND finished_at >= $6
        ${after ? `AND (finished_at, seq) < ($8::bigint, $9::bigint)` : ''}
      ORDER BY finished_at DESC, seq DESC LIMIT $4`;
    this.pageResults = { first: pageResult(false), after: pageResult(true) };
    // One statement, so one snapshot: a task acknowledged meanwhile is counted once.
    // $2 the oldest finish kept, $3 now, $4 the window's start. Rows: (queue, what, count, in_window).
    this.counts = `
      SELECT queue, state AS what, count(*) AS count, 0::bigint AS in_window
      FROM ${s}.threadmill_tasks WHERE alias = $1 GROUP BY queue, state
      UNION ALL
      SELECT queue, status, count(*), count(*) FILTER (WHERE finished_at >= $4)
      FROM ${s}.threadmill_results
      WHERE alias = $1 AND finished_at >= $2 AND expires_at > $3
      GROUP BY queue, status
      UNION ALL
      -- A second the window covers in part counts in proportion.
      SELECT queue, 'ingress',
        round(sum(count * least(1.0, (second * 1000 + 1000 - $4::bigint) / 1000.0)))::bigint, 0
      FROM ${ingress}
      WHERE alias = $1 AND second >= floor($4::bigint / 1000.0)
      GROUP BY queue`;
    // $2 queue, $3 start, $4 end, $5 bucketMs.
    this.ingressBuckets = `
      SELECT floor((second * 1000 - $3::bigint) / $5::float8)::bigint AS bucket, sum(count)::bigint AS count
      FROM ${ingress}
      WHERE alias = $1 AND queue = $2
        AND second >= ceil($3::bigint / 1000.0) AND second < ceil($4::bigint / 1000.0)
      GROUP BY 1`;
    // $2 queue, $3 start, $4 from, $5 end, $6 bucketMs, $7 status, $8 now.
    this.resultBuckets = `
      SELECT floor((finished_at - $3::bigint) / $6::float8)::bigint AS bucket, count(*) AS count
      FROM ${s}.threadmill_results
      WHERE alias = $1 AND queue = $2 AND status = $7
        AND finished_at >= $4 AND finished_at < $5 AND expires_at > $8
      GROUP BY 1`;
    // $2 queue, $3 status, $4 from, $5 to, $6 now, $7 limit.
    this.sampleResults = `
      SELECT id, data FROM ${s}.threadmill_results
      WHERE alias = $1 AND queue = $2 AND status = $3
        AND finished_at >= $4 AND finished_at < $5 AND expires_at > $6
      LIMIT $7`;
    this.readMeta = `SELECT value FROM ${s}.threadmill_meta WHERE alias = $1 AND key = $2`;
    this.writeMeta = `
      INSERT INTO ${s}.threadmill_meta (alias, key, value) VALUES ($1, $2, $3)
      ON CONFLICT (alias, key) DO UPDATE SET value = excluded.value`;
    // Tasks before results in one statement (one snapshot): an acknowledge moves a row across.
    this.selectTaskOrResult = `
      SELECT id, data, progress FROM ${s}.threadmill_tasks WHERE alias = $1 AND id = $2
      UNION ALL
      SELECT id, data, progress FROM ${s}.threadmill_results
      WHERE alias = $1 AND id = $2 AND expires_at > $3
      LIMIT 1`;
  }
}
