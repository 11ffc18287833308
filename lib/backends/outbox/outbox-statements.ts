/** Now on the server's clock, epoch ms. */
const SERVER_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * The outbox's statements over `<schema>.threadmill_outbox` (a migration
 * of postgres-migrations.ts): a row per task, its `request` the record
 * the Redis backend would have been given, deleted once moved.
 *
 * @internal
 */
export class OutboxStatements {
  /**
   * Writes the rows of one enqueue, and the notification the relay wakes on
   * (delivered at the commit, never for a rollback). An id already in the
   * outbox is skipped; `ids` lists those written. A count, not pg_notify's
   * void column, which some clients cannot read (Prisma).
   * Write times are the server's clock, as the backlog's age is read on it.
   * $1 alias, $2 ids, $3 requests, $4 channel.
   */
  readonly write: string;
  /** The oldest rows of an alias not set aside, in the order they were written. $1 alias, $2 how many. */
  readonly oldest: string;
  /**
   * Sets rows aside that no move can take, each with why: the relay reads
   * past them, and they stay until someone clears `parked`.
   * $1 alias, $2 ids, $3 reasons.
   */
  readonly park: string;
  /** Deletes moved rows, or one call's when some of its ids were taken. $1 alias, $2 ids. */
  readonly delete: string;
  /** Rows waiting, the oldest one's age (ms, on the server's clock), and rows set aside. $1 alias. */
  readonly backlog: string;

  constructor(schema: string) {
    const table = `${schema}.threadmill_outbox`;
    this.write = `WITH written AS (
        INSERT INTO ${table} (alias, id, written_at, request)
        SELECT $1, w.id, ${SERVER_MS}, w.request FROM unnest($2::text[], $3::text[]) AS w(id, request)
        ON CONFLICT (alias, id) DO NOTHING
        RETURNING id
      )
      SELECT (SELECT coalesce(array_agg(id), '{}') FROM written) AS ids,
        (SELECT count(*)::int FROM (SELECT pg_notify($4, '')) AS n) AS notified`;
    this.oldest = `SELECT id, request FROM ${table}
      WHERE alias = $1 AND parked IS NULL ORDER BY seq LIMIT $2`;
    this.park = `UPDATE ${table} AS o SET parked = p.reason
      FROM unnest($2::text[], $3::text[]) AS p(id, reason) WHERE o.alias = $1 AND o.id = p.id`;
    this.delete = `DELETE FROM ${table} WHERE alias = $1 AND id = ANY($2::text[])`;
    this.backlog = `SELECT count(*) FILTER (WHERE parked IS NULL)::int AS count,
        ${SERVER_MS} - min(written_at) FILTER (WHERE parked IS NULL) AS age,
        count(*) FILTER (WHERE parked IS NOT NULL)::int AS parked
      FROM ${table} WHERE alias = $1`;
  }
}
