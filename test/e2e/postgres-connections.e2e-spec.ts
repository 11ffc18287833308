import { Client } from 'pg';

import { newRecord } from '../../lib/backend-kit';
import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { startCli, untilOutput, type RunningCli } from '../helpers/cli-process';
import { createTestSchema, type TestSchema } from '../helpers/postgres-schema';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';

// How many connections each process opens on Postgres, read from
// pg_stat_activity, where each is named `threadmill pid <pid>` (or as its
// url names it): an app's pool is bounded by poolSize, its one listening
// connection comes on top and may go to listenUrl; a worker pool's main
// process and each child hold their own.

/** One process's connections as pg_stat_activity shows them. */
interface Held {
  readonly total: number;
  readonly listening: number;
}

describe('Postgres connections per process (e2e)', () => {
  jest.setTimeout(60_000);
  let admin: Client;
  let created: TestSchema;
  let alias: string;
  const backends: PostgresBackend[] = [];
  const started: RunningCli[] = [];

  beforeAll(async () => {
    created = await createTestSchema();
    admin = new Client({ connectionString: created.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
    await created.drop();
  });

  beforeEach(() => {
    alias = testAlias();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    for (const cli of started.splice(0)) await cli.killGroup();
  });

  /** The connections of each application_name. */
  const held = async (): Promise<Map<string, Held>> => {
    const { rows } = await admin.query<{ name: string; total: number; listening: number }>(
      `SELECT application_name AS name, count(*)::int AS total,
              count(*) FILTER (WHERE query LIKE 'LISTEN %')::int AS listening
       FROM pg_stat_activity WHERE application_name <> '' GROUP BY application_name`,
    );
    return new Map(rows.map(({ name, total, listening }) => [name, { total, listening }]));
  };

  const ofProcess = async (pid: number): Promise<Held> =>
    (await held()).get(`threadmill pid ${pid}`) ?? { total: 0, listening: 0 };

  const open = (options: Record<string, unknown>): PostgresBackend => {
    const backend = new PostgresBackend(
      alias,
      { backend: PostgresBackend, url: created.url, options: { schema: created.name, ...options } },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  it('an app: at most poolSize connections for its calls, and one more to listenUrl while it waits', async () => {
    const listenUrl = new URL(created.url);
    listenUrl.searchParams.set('application_name', `listen ${alias}`);
    const app = open({ poolSize: 3, listenUrl: listenUrl.toString() });
    await app.ping();
    expect(await ofProcess(process.pid)).toEqual({ total: 1, listening: 0 });

    // Enqueues made at once share round trips: 30 of them need one connection.
    const tasks = await Promise.all(
      Array.from({ length: 30 }, () => app.tasks.enqueue(newRecord(alias))),
    );
    expect(await ofProcess(process.pid)).toEqual({ total: 1, listening: 0 });
    // Reads made at once each take a connection of the pool, up to poolSize.
    await Promise.all(tasks.map((task) => app.tasks.getResult(task.id)));
    // The pool keeps its idle connections a while (pg's idleTimeoutMillis, 10 s): all it opened.
    expect(await ofProcess(process.pid)).toEqual({ total: 3, listening: 0 });

    const waiting = app.leases.acquire(['emails'], { workerId: 'host:1-0', timeoutMs: 20_000 });
    await waitFor(async () => (await held()).get(`listen ${alias}`)?.listening === 1, {
      what: 'the listening connection, named by listenUrl',
    });
    expect(await ofProcess(process.pid)).toEqual({ total: 3, listening: 0 });
    await app.close();
    await expect(waiting).resolves.toEqual([]);
    // The server ends a closed connection's backend a moment after the client has gone.
    await waitFor(
      async () => {
        const left = await ofProcess(process.pid);
        return left.total === 0 && left.listening === 0;
      },
      { what: "the app's connections to end" },
    );
    expect((await held()).get(`listen ${alias}`)).toBeUndefined();
  });

  it('a worker pool: its main process and each child hold their own, each child one listening', async () => {
    const pool = startCli(
      ['worker', '--processes', '2', '--threads', '4'],
      {
        DATABASE_URL: created.url,
        THREADMILL_PG_SCHEMA: created.name,
        THREADMILL_ALIAS: alias,
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: '',
        REDIS_SENTINELS: '',
      },
      started,
    );
    await untilOutput(pool, /Worker child \d+ is ready[\s\S]*Worker child \d+ is ready/);
    const children = pool.liveChildren();
    expect(children).toHaveLength(2);
    await waitFor(
      async () => {
        for (const child of children) if ((await ofProcess(child)).listening !== 1) return false;
        return true;
      },
      { what: 'each idle child listening' },
    );
    const main = await ofProcess(pool.pid);
    // The main process runs the maintenance passes and beats: no slot waits in it.
    expect(main.listening).toBe(0);
    expect(main.total).toBeLessThanOrEqual(10);
    for (const child of children) {
      const { total } = await ofProcess(child);
      // Its pool (10 by default) and the listener, never more.
      expect(total).toBeGreaterThanOrEqual(1);
      expect(total).toBeLessThanOrEqual(11);
    }
  });
});
