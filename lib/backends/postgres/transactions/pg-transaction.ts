import type { TaskTransaction } from '../../../core/task-transaction';

/** What the pg adapter needs of a client: `query` with `$n` parameters (pg's Client and PoolClient). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * The app's transaction on a pg client (a `Client`, or a `PoolClient`
 * checked out of a `Pool`) after its `BEGIN`, for an enqueue's
 * `transaction` override. Not a `Pool`: each of its queries may take
 * another connection, outside the transaction.
 *
 * @param client the client that ran `BEGIN` and will run `COMMIT` or `ROLLBACK`.
 * @example
 * ```ts
 * await client.query('BEGIN');
 * await tasks.enqueue(MailTasks, 'sendWelcome', [userId], { transaction: pgTransaction(client) });
 * await client.query('COMMIT');
 * ```
 * @publicApi
 */
export function pgTransaction(client: PgQueryable): TaskTransaction {
  return {
    source: 'pg',
    query: async (text, values) => (await client.query(text, [...values])).rows,
  };
}
