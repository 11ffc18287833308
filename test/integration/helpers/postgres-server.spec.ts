import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from '../../helpers/free-port';
import { postgresQuery } from '../../helpers/postgres-query';
import { createTestSchema } from '../../helpers/postgres-schema';
import {
  postgresBinDir,
  startPostgresServer,
  type PostgresServerHandle,
} from '../../helpers/postgres-server';
import { testPostgresUrl } from '../../helpers/test-postgres-url';

// The Postgres the suites run on: a private cluster of Debian's binaries
// (started here even when PG_URL points elsewhere), the run's own, and the
// schema each test isolates itself in.

/** Runs `fn` on a connection to `url`, closed whatever happens. */
async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Whether 127.0.0.1 may listen on the port right now. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return listening;
}

/** The schemas of these names that exist on `url`. */
async function existingSchemas(url: string, names: readonly string[]): Promise<string[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname',
      [names],
    );
    return rows.map((row) => row.nspname);
  });
}

describe('startPostgresServer', () => {
  let server: PostgresServerHandle | undefined;

  afterEach(async () => {
    const started = server;
    server = undefined;
    await started?.remove();
  });

  it('starts a private cluster on 127.0.0.1 with the settings asked for; remove() leaves nothing', async () => {
    const started = await startPostgresServer({
      fast: false,
      settings: { application_name: "it's" },
    });
    server = started;
    expect(started.url).toBe(`postgres://postgres@127.0.0.1:${started.port}/postgres`);
    expect(started.url).not.toBe(process.env.PG_URL);
    const row = await withClient(started.url, async (client) => {
      const { rows } = await client.query<{ one: number; listen: string; fsync: string }>(
        `SELECT 1 AS one, current_setting('listen_addresses') AS listen,
                current_setting('fsync') AS fsync, current_setting('application_name') AS name`,
      );
      return rows[0];
    });
    expect(row).toEqual({ one: 1, listen: '127.0.0.1', fsync: 'on', name: "it's" });

    await started.remove();
    expect(existsSync(started.dir)).toBe(false);
    expect(await portIsFree(started.port)).toBe(true);
  });

  it('keeps a committed row across an immediate stop and a start, fast as it is; remove() after a stop leaves nothing', async () => {
    const started = await startPostgresServer();
    server = started;
    const { url } = started;
    await withClient(url, async (client) => {
      await client.query('CREATE TABLE kept (id int PRIMARY KEY)');
      await client.query('INSERT INTO kept VALUES (42)');
    });
    await started.stop({ mode: 'immediate' });
    await expect(withClient(url, (client) => client.query('SELECT 1'))).rejects.toThrow(
      /ECONNREFUSED/,
    );
    await started.start();
    const after = await withClient(url, async (client) => {
      const kept = await client.query<{ id: number }>('SELECT id FROM kept');
      const fsync = await client.query<{ fsync: string }>(
        "SELECT current_setting('fsync') AS fsync",
      );
      return { rows: kept.rows, fsync: fsync.rows[0]?.fsync };
    });
    expect(after).toEqual({ rows: [{ id: 42 }], fsync: 'off' });

    await started.stop();
    await started.remove();
    expect(existsSync(started.dir)).toBe(false);
  });

  it('fails with the log when its port is taken, and leaves nothing behind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const failure = await startPostgresServer({ port }).then(
        () => new Error('a cluster started on a taken port'),
        (error: unknown) => error as Error,
      );
      expect(failure.message).toMatch(/could not start server[\s\S]*Address already in use/);
      const failedDir = /-D (\S+)\/data/.exec(failure.message)?.[1];
      expect(failedDir).toMatch(/threadmill-postgres-/);
      expect(existsSync(failedDir ?? '')).toBe(false);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('starts on another free port when the one it found is taken by the time it binds', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const takenPort = typeof address === 'object' && address ? address.port : 0;
    const handedOut: number[] = [];
    try {
      const started = await startPostgresServer({
        // The first port it is handed is taken (as by another process since it was found free).
        freePort: async () => {
          const port = handedOut.length === 0 ? takenPort : await freePort();
          handedOut.push(port);
          return port;
        },
      });
      server = started;
      expect(handedOut).toHaveLength(2);
      expect(started.port).toBe(handedOut[1]);
      expect(started.url).toContain(`:${handedOut[1]}/`);
      const [row] = await postgresQuery<{ port: string }>(
        started.url,
        "SELECT current_setting('port') AS port",
      );
      expect(Number(row.port)).toBe(handedOut[1]);
      // A restart comes back on the port it started on.
      await started.stop();
      await started.start();
      expect(await postgresQuery(started.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

describe('postgresBinDir', () => {
  const root = mkdtempSync(join(tmpdir(), 'threadmill-postgres-bins-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Debian's layout: `<root>/<version>/bin/<tool>`, empty files standing for the binaries. */
  const install = (version: string, tools: readonly string[]) => {
    mkdirSync(join(root, version, 'bin'), { recursive: true });
    for (const tool of tools) writeFileSync(join(root, version, 'bin', tool), '');
  };

  it('says how to install the binaries when there are none', () => {
    expect(() => postgresBinDir(root)).toThrow(/apt-get install -y postgresql/);
    expect(() => postgresBinDir(join(root, 'missing'))).toThrow(/apt-get install -y postgresql/);
  });

  it('takes the newest major version that has both initdb and pg_ctl', () => {
    install('9.6', ['initdb', 'pg_ctl']);
    install('15', ['initdb', 'pg_ctl']);
    install('17', ['initdb']);
    expect(postgresBinDir(root)).toBe(join(root, '15', 'bin'));
  });
});

describe("the run's Postgres", () => {
  it('answers through testPostgresUrl()', async () => {
    const one = await withClient(testPostgresUrl(), async (client) => {
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      return rows[0]?.one;
    });
    expect(one).toBe(1);
  });

  it('gives each test a schema of its own, and drops only that one', async () => {
    const url = testPostgresUrl();
    const mine = await createTestSchema();
    const neighbour = await createTestSchema();
    try {
      expect(mine.name).toMatch(/^t_[0-9a-f]{32}$/);
      expect(mine.name).not.toBe(neighbour.name);
      expect(mine.url).toBe(url);
      await withClient(url, (client) => client.query(`CREATE TABLE ${mine.name}.tasks (id int)`));
      expect(await existingSchemas(url, [mine.name, neighbour.name])).toEqual(
        [mine.name, neighbour.name].sort(),
      );

      await mine.drop();
      await mine.drop();
      expect(await existingSchemas(url, [mine.name, neighbour.name])).toEqual([neighbour.name]);
    } finally {
      await neighbour.drop();
    }
    expect(await existingSchemas(url, [neighbour.name])).toEqual([]);
  });
});
