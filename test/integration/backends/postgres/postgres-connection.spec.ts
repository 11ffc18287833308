import { Logger } from '@nestjs/common';
import { Client, type PoolClient } from 'pg';

import { resolvePostgresBackendSettings } from '../../../../lib/backends/postgres/postgres-backend-options';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { PostgresConnection } from '../../../../lib/backends/postgres/postgres-connection';
import { loadPostgresDriver } from '../../../../lib/backends/postgres/postgres-driver';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';

/** Short, so a statement that outlives it is quick to make; every other statement here is far quicker. */
const COMMAND_TIMEOUT_MS = 1000;

describe('PostgresConnection', () => {
  let admin: Client;
  let schema: TestSchema;
  let connection: PostgresConnection;

  beforeAll(async () => {
    admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
  });

  beforeEach(async () => {
    schema = await createTestSchema();
    const alias = testAlias();
    const settings = resolvePostgresBackendSettings(alias, {
      backend: PostgresBackend,
      url: testPostgresUrl(),
      options: { schema: schema.name, commandTimeout: COMMAND_TIMEOUT_MS },
    });
    connection = new PostgresConnection(alias, settings, new Logger(), loadPostgresDriver(alias));
    await connection.ready;
  });

  afterEach(async () => {
    await connection.close();
    await schema.drop();
  });

  it('fails the transaction whose connection the server ended between two statements, typed, and the next one works', async () => {
    let held: PoolClient | undefined;
    connection.pool.once('acquire', (client: PoolClient) => (held = client));
    const attempt = connection.transaction(async (tx) => {
      const [{ pid }] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Not events.once, which would listen for 'error' too.
      const ended = new Promise((resolve) => held!.once('end', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // Ended while no statement of it runs: pg's pool has no listener for that error.
      await ended;
      return tx.query('SELECT 1');
    });
    await expect(attempt).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(attempt).rejects.toThrow(/cannot use Postgres/);
    expect(await connection.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('fails a statement with no reply within commandTimeout, typed, drops its connection, and the next call works', async () => {
    const startedAt = Date.now();
    const slow = connection.query('SELECT pg_sleep(5)');
    await expect(slow).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(slow).rejects.toThrow(/Query read timeout/);
    expect(Date.now() - startedAt).toBeLessThan(4000);
    expect(await connection.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
