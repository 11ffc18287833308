import type { Database, Statement } from 'better-sqlite3';

import { STATE_INDEX, type TaskState } from './sqlite-schema';

/** A row one page of a segment examines. */
export interface ListedRow {
  /** The ordered column's value and the tie-break among equal ones (seq, or a result's rowid). */
  score: number;
  tie: number;
  id: string;
  /** 1 while the row is within its expiry. */
  live: number;
  /** Null when the row is of another name than the one asked for (left unread). */
  data: string | null;
  progress: string | null;
}

/** What a page's statement is given; `score` and `tie` only after a cursor. */
export interface ListParams {
  alias: string;
  queue: string;
  now: number;
  /** The task name asked for, or null for every name. */
  name: string | null;
  /** Rows to read: what may be examined, plus one that tells whether the segment goes on. */
  rows: number;
  score?: number;
  tie?: number;
  /** Finished segments: the status, and the oldest finish time kept. */
  status?: string;
  since?: number;
}

/** A bucket's count, as GROUP BY returns it. */
export interface BucketRow {
  bucket: number;
  count: number;
}

/** What the activity statements are given (a bucket range of one queue, one status). */
export interface BucketParams {
  alias: string;
  queue: string;
  /** The first bucket's start, and the oldest time counted (later when retention is shorter). */
  start: number;
  from: number;
  end: number;
  bucketMs: number;
  status: string;
  now: number;
}

/** Which range of a segment a page's statement reads (see SqliteListingStatements.pageTasks). */
export type PageRange = 'first' | 'sameScore' | 'after';

/** The ordered column of each state, first of its STATE_ORDER. */
const STATE_COLUMN: Record<TaskState, string> = {
  ready: 'score',
  running: 'lease_until',
  deferred: 'run_at',
};

/**
 * The statements of the operators' reads, prepared once per connection:
 * one page of a segment from a cursor (index ranges on the column and
 * tie-break its index orders, so a page deep in a million tasks costs what
 * the first does), and activity
 * per bucket (a GROUP BY over one index range, then a bounded sample).
 * A name filter reads `data` only for the rows of that name.
 *
 * @internal
 */
export class SqliteListingStatements {
  /**
   * Per state, three ranges: from the first row; after a cursor, the rows
   * of the cursor's own value past its tie-break, then the rows of greater
   * values. Two ranges, because SQLite seeks a row value comparison on its
   * first column only, and a million tasks deferred to one time would make
   * the rows of that one value a scan.
   */
  readonly pageTasks: Record<TaskState, Record<PageRange, Statement<[ListParams], ListedRow>>>;
  /** The same three ranges, newest first. */
  readonly pageResults: Record<PageRange, Statement<[ListParams], ListedRow>>;
  readonly ingressBuckets: Statement<[Omit<BucketParams, 'from' | 'status' | 'now'>], BucketRow>;
  readonly resultBuckets: Statement<[BucketParams], BucketRow>;
  readonly sampleResults: Statement<
    [
      {
        alias: string;
        queue: string;
        status: string;
        from: number;
        to: number;
        now: number;
        limit: number;
      },
    ],
    { id: string; data: string }
  >;

  constructor(db: Database) {
    const named = `CASE WHEN :name IS NULL
      OR (json_valid(data) AND json_extract(data, '$.task.name') = :name) THEN data END`;
    const pageTask = (state: TaskState, range: PageRange) => {
      const column = STATE_COLUMN[state];
      const where = {
        first: '',
        sameScore: `AND ${column} = :score AND seq > :tie`,
        after: `AND ${column} > :score`,
      }[range];
      return db.prepare<[ListParams], ListedRow>(`
        SELECT ${column} AS score, seq AS tie, id, expires_at > :now AS live,
          ${named} AS data, progress
        FROM threadmill_tasks INDEXED BY ${STATE_INDEX[state]}
        WHERE alias = :alias AND queue = :queue AND state = '${state}' ${where}
        ORDER BY ${column}, seq LIMIT :rows`);
    };
    const ranges = (state: TaskState) => ({
      first: pageTask(state, 'first'),
      sameScore: pageTask(state, 'sameScore'),
      after: pageTask(state, 'after'),
    });
    this.pageTasks = {
      ready: ranges('ready'),
      running: ranges('running'),
      deferred: ranges('deferred'),
    };
    // As peek orders them: newest first, rowid breaking ties.
    const pageResult = (range: PageRange) => {
      const where = {
        first: '',
        sameScore: 'AND finished_at = :score AND rowid < :tie',
        after: 'AND finished_at < :score',
      }[range];
      return db.prepare<[ListParams], ListedRow>(`
        SELECT finished_at AS score, rowid AS tie, id, expires_at > :now AS live,
          ${named} AS data, progress
        FROM threadmill_results
        WHERE alias = :alias AND queue = :queue AND status = :status AND finished_at >= :since
          ${where}
        ORDER BY finished_at DESC, rowid DESC LIMIT :rows`);
    };
    this.pageResults = {
      first: pageResult('first'),
      sameScore: pageResult('sameScore'),
      after: pageResult('after'),
    };
    this.ingressBuckets = db.prepare(`
      SELECT CAST((second * 1000 - :start) / :bucketMs AS INTEGER) AS bucket, SUM(count) AS count
      FROM threadmill_ingress_counts
      WHERE alias = :alias AND queue = :queue
        AND second >= CAST((:start + 999) / 1000 AS INTEGER) AND second < CAST((:end + 999) / 1000 AS INTEGER)
      GROUP BY bucket`);
    this.resultBuckets = db.prepare(`
      SELECT CAST((finished_at - :start) / :bucketMs AS INTEGER) AS bucket, COUNT(*) AS count
      FROM threadmill_results
      WHERE alias = :alias AND queue = :queue AND status = :status
        AND finished_at >= :from AND finished_at < :end AND expires_at > :now
      GROUP BY bucket`);
    this.sampleResults = db.prepare(`
      SELECT id, data FROM threadmill_results
      WHERE alias = :alias AND queue = :queue AND status = :status
        AND finished_at >= :from AND finished_at < :to AND expires_at > :now
      LIMIT :limit`);
  }
}
