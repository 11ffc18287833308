import { Client } from 'pg';

import { newRecord } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { channelName, migrationLockKey } from '../../../../lib/backends/postgres/postgres-names';
import { POSTGRES_SCHEMA_VERSION } from '../../../../lib/backends/postgres/postgres-migrations';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';
import { UnsupportedStoreError } from '../../../../lib/core/errors/unsupported-store.error';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { freePort } from '../../../helpers/free-port';
import { testAlias } from '../../../helpers/test-alias';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { waitFor } from '../../../helpers/wait-for';

describe('PostgresBackend (Postgres specifics)', () => {
  let admin: Client;
  let created: TestSchema;
  let schema: string;
  let alias: string;
  const backends: PostgresBackend[] = [];

  const open = (options: Record<string, unknown> = {}, url = testPostgresUrl()) => {
    const backend = new PostgresBackend(
      alias,
      { backend: PostgresBackend, url, options: { schema, ...options } },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  beforeAll(async () => {
    admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
  });

  beforeEach(async () => {
    created = await createTestSchema();
    schema = created.name;
    alias = testAlias();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    await created.drop();
  });

  describe('migrations', () => {
    it('migrates a fresh schema once when five instances start at once, and each works', async () => {
      const started = Array.from({ length: 5 }, () => open());
      await Promise.all(started.map((backend) => backend.ping()));
      const { rows } = await admin.query<{ version: number }>(
        `SELECT version FROM ${schema}.threadmill_migrations ORDER BY version`,
      );
      expect(rows.map((row) => row.version)).toEqual(
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1),
      );
      const records = started.map(() => newRecord(alias));
      await Promise.all(started.map((backend, i) => backend.tasks.enqueue(records[i])));
      const leased = await Promise.all(
        started.map((backend, i) =>
          backend.leases.acquire(['default'], { workerId: `host:${i}-0`, timeoutMs: 0 }),
        ),
      );
      expect(
        leased
          .flat()
          .map((record) => record.id)
          .sort(),
      ).toEqual(records.map((record) => record.id).sort());
      const [first] = leased.flat();
      await started[4].leases.acknowledge([
        { ...first, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() },
      ]);
      await expect(started[0].tasks.getResult(first.id)).resolves.toMatchObject({
        status: TaskResultStatus.SUCCESSFUL,
      });
    });

    it("waits for another instance's migration longer than commandTimeout: migrations are not bound by it", async () => {
      const watcher = new Client({ connectionString: testPostgresUrl() });
      await watcher.connect();
      await admin.query('BEGIN');
      try {
        await admin.query('SELECT pg_advisory_xact_lock($1::bigint)', [migrationLockKey(schema)]);
        const backend = open({ commandTimeout: 300 });
        const pinged = backend.ping();
        // Its migration has waited for the lock past commandTimeout.
        await waitFor(
          async () => {
            // Read outside admin's transaction, whose view of pg_stat_activity stays as it first read it.
            const { rows } = await watcher.query<{ waiting: boolean }>(
              `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory'
                 AND clock_timestamp() - query_start > interval '900 milliseconds') AS waiting`,
            );
            return rows[0].waiting;
          },
          { timeoutMs: 10_000, what: 'the migration to wait on the lock past commandTimeout' },
        );
        await admin.query('COMMIT');
        await expect(pinged).resolves.not.toThrow();
      } finally {
        await admin.query('ROLLBACK');
        await watcher.end();
      }
    });

    it('opens a schema it migrated before without migrating it again', async () => {
      await open().ping();
      await open().ping();
      const { rows } = await admin.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${schema}.threadmill_migrations`,
      );
      expect(rows[0].count).toBe(POSTGRES_SCHEMA_VERSION);
    });

    it('refuses a schema newer than the code, naming both versions, and changes nothing', async () => {
      await admin.query(
        `CREATE TABLE ${schema}.threadmill_migrations (version integer PRIMARY KEY,
           applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const newer = POSTGRES_SCHEMA_VERSION + 1;
      await admin.query(`INSERT INTO ${schema}.threadmill_migrations (version) VALUES ($1)`, [
        newer,
      ]);
      const backend = open();
      const refused = await backend.tasks.enqueue(newRecord(alias)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UnsupportedStoreError);
      expect((refused as Error).message).toContain(`"${schema}" is at version ${newer}`);
      expect((refused as Error).message).toContain(
        `knows versions up to ${POSTGRES_SCHEMA_VERSION}`,
      );
      await expect(backend.ping()).rejects.toBeInstanceOf(UnsupportedStoreError);
      const { rows } = await admin.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`,
        [schema],
      );
      expect(rows.map((row) => row.table_name)).toEqual(['threadmill_migrations']);
    });

    it('with migrate: false, refuses a schema behind it, naming the command, until migrate() ran', async () => {
      const backend = new PostgresBackend(
        alias,
        {
          backend: PostgresBackend,
          url: testPostgresUrl(),
          queues: [{ name: 'default', concurrency: 2 }],
          options: { schema, migrate: false },
        },
        storeRules,
      );
      backends.push(backend);
      const refused = await backend.tasks.enqueue(newRecord(alias)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UnsupportedStoreError);
      expect((refused as Error).message).toContain(
        `"${schema}" is at version 0, and this release needs version ${POSTGRES_SCHEMA_VERSION}`,
      );
      expect((refused as Error).message).toContain(`threadmill migrate --alias "${alias}"`);
      const { rows } = await admin.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM information_schema.tables WHERE table_schema = $1`,
        [schema],
      );
      expect(rows[0].count).toBe(0);

      await expect(backend.migrate()).resolves.toMatchObject({
        from: 0,
        to: POSTGRES_SCHEMA_VERSION,
      });
      await backend.tasks.enqueue(newRecord(alias));
      // The configured limits were seeded once the schema was there.
      expect(await backend.control.queueLimits()).toMatchObject({ default: { concurrency: 2 } });
      await expect(backend.migrate()).resolves.toMatchObject({ from: POSTGRES_SCHEMA_VERSION });
      await expect(open({ migrate: false }).ping()).resolves.toBeUndefined();
    });
  });

  describe('configuration', () => {
    const refusal = (options: Record<string, unknown>, url?: string): unknown => {
      try {
        open(options, url);
      } catch (error) {
        return error;
      }
      return null;
    };

    it.each([
      [
        'an unknown option',
        { poolsize: 3 },
        undefined,
        /option "poolsize" is not an option of PostgresBackend/,
      ],
      [
        'a schema that is no plain name',
        { schema: 'Bad-Schema' },
        undefined,
        /option "schema" must be 1-63 lower-case/,
      ],
      ['a schema that is not a string', { schema: 7 }, undefined, /option "schema" must be/],
      [
        'a pool of no connection',
        { poolSize: 0 },
        undefined,
        /option "poolSize" must be a whole number of at least 1/,
      ],
      [
        'a command timeout of no time',
        { commandTimeout: 0 },
        undefined,
        /option "commandTimeout" must be a positive whole number of milliseconds/,
      ],
      [
        'a url of another store',
        {},
        'redis://127.0.0.1:6379',
        /option "url" must be a postgres:\/\/ or postgresql:\/\/ url/,
      ],
      ['an empty url', {}, ' ', /option "url" is required/],
      [
        'a listenUrl of another store',
        { listenUrl: 'redis://127.0.0.1:6379' },
        undefined,
        /option "listenUrl" must be a postgres:\/\/ or postgresql:\/\/ url/,
      ],
      ['a migrate that is not a boolean', { migrate: 'no' }, undefined, /option "migrate"/],
    ])('refuses %s, naming the alias and the option', (_what, options, url, message) => {
      const refused = refusal(options, url);
      expect(refused).toBeInstanceOf(InvalidBackendConfigError);
      expect((refused as Error).message).toMatch(message);
      expect((refused as Error).message).toContain(`"${alias}"`);
    });

    it('shows no password of a refused url', () => {
      const refused = refusal({}, 'mysql://app:secret@127.0.0.1/app');
      expect((refused as Error).message).not.toContain('secret');
    });
  });

  it('wakes an idle acquire at once after its listening connection was terminated and made again', async () => {
    const consumer = open();
    const producer = open();
    await producer.ping();
    const listening = async (): Promise<number[]> => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query = $1`,
        [`LISTEN "${channelName(schema, alias, 'work')}"`],
      );
      return rows.map((row) => row.pid);
    };
    const waiting = consumer.leases.acquire(['default'], {
      workerId: 'host:1-0',
      timeoutMs: 20_000,
    });
    await waitFor(async () => (await listening()).length === 1, { what: 'the consumer listening' });
    const [lost] = await listening();
    await admin.query('SELECT pg_terminate_backend($1)', [lost]);
    await waitFor(async () => (await listening()).some((pid) => pid !== lost), {
      what: 'the listening connection made again',
    });
    const task = await producer.tasks.enqueue(newRecord(alias));
    const enqueuedAt = Date.now();
    await expect(waiting).resolves.toMatchObject([{ id: task.id }]);
    // Well inside the 5 s safety poll: the notification woke it.
    expect(Date.now() - enqueuedAt).toBeLessThan(2000);
  });

  it('reports a server out of reach as BackendUnavailableError, retryable, without its password', async () => {
    const port = await freePort();
    const backend = open({}, `postgres://postgres:secret@127.0.0.1:${port}/test`);
    const refused = await backend.ping().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BackendUnavailableError);
    expect((refused as BackendUnavailableError).retryable).toBe(true);
    expect((refused as Error).message).toContain(`127.0.0.1:${port}`);
    expect((refused as Error).message).not.toContain('secret');
  });
});
