import type { ClientBase } from 'pg';

/**
 * Which notices of `n(c, p, f)` (channel, payload, feed) are sent: always
 * (''), while the queue has limits ('limited'), or while the feed has a live
 * listener. `alias` and `now` are SQL literals or parameters.
 */
export function noticeFilter(schema: string, alias: string, now: string): string {
  return `WHERE CASE n.f
        WHEN '' THEN true
        WHEN 'limited' THEN EXISTS (SELECT 1 FROM ${schema}.threadmill_queue_limits q
          WHERE q.alias = ${alias} AND q.queue = n.p AND q.limits NOT LIKE '0 %')
        ELSE EXISTS (SELECT 1 FROM ${schema}.threadmill_feed_listeners l
          WHERE l.alias = ${alias} AND l.feed = n.f AND l.expires_at > ${now})
      END`;
}

/** The statement that sends `notices` before COMMIT, each only while its condition holds. */
export function noticeStatement(
  client: ClientBase,
  notices: readonly string[][],
  schema: string,
  alias: string,
  now: number,
): string {
  if (notices.length === 0) return '';
  const rows = notices
    .map((row) => `(${row.map((value) => client.escapeLiteral(value)).join(', ')})`)
    .join(', ');
  return `SELECT pg_notify(n.c, n.p) FROM (VALUES ${rows}) AS n(c, p, f)
      ${noticeFilter(schema, client.escapeLiteral(alias), String(now))};`;
}
