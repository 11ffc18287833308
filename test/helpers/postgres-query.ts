import { Client } from 'pg';

/**
 * Runs `sql` on a connection of its own, closed whatever happens; its rows.
 * A connection the server drops mid-statement (a crash, a PANIC, a stop)
 * fails the statement and also emits 'error' on the client: heard here, so
 * a test that queries a server it is taking down gets a rejection, never an
 * unhandled error that ends its worker.
 */
export async function postgresQuery<R extends Record<string, unknown>>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
