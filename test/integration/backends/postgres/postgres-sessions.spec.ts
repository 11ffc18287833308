import { appendFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

import { lockKey, sessionName } from '../../../../lib/backends/postgres/postgres-names';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { startPostgresServer, type PostgresServerHandle } from '../../../helpers/postgres-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';

// pools.endSessionsOf on Postgres: a dead process's sessions, found by the
// name each process gives its own (`threadmill pid <pid>`) and the address
// it connects from, are ended, and the call resolves once none is left. A
// cluster of this file's own, on 127.0.0.1, so a session can also come from
// another address of this machine (127.0.0.2), as another machine's would.

/** A pid no process of this test has; the name of NEIGHBOUR starts with its name. */
const DEAD = 900_001;
const NEIGHBOUR = 9_000_011;
const WAIT_MS = 5000;

/** A socket that connects from `localAddress`, where pg asks it to connect. */
class SocketFrom extends Socket {
  constructor(private readonly from: string) {
    super();
  }

  override connect(...args: unknown[]): this {
    const [port, host] = args as [number, string];
    return super.connect({ port, host, localAddress: this.from });
  }
}

describe('PostgresBackend: the sessions of a dead process', () => {
  let server: PostgresServerHandle;
  const clients: Client[] = [];
  const backends: PostgresBackend[] = [];

  /** A connected session named `name`, from 127.0.0.1 or `from`. */
  const session = async (name: string, from?: string): Promise<Client> => {
    const client = new Client({
      connectionString: server.url,
      application_name: name,
      ...(from && { stream: () => new SocketFrom(from) }),
    });
    // A session ended by the server emits 'error' when idle: heard, so it fails only its queries.
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  };

  const open = (url = server.url): PostgresBackend => {
    const backend = new PostgresBackend(
      testAlias(),
      { backend: PostgresBackend, url, options: { schema: 'threadmill' } },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  /** The sessions named `name` now, from any address. */
  const named = async (name: string): Promise<number> => {
    const [row] = await postgresRows(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
      [name],
    );
    return row?.n ?? -1;
  };

  let admin: Client;
  const postgresRows = async (sql: string, values: unknown[]) =>
    (await admin.query<{ n: number }>(sql, values)).rows;

  beforeAll(async () => {
    server = await startPostgresServer();
    // initdb lets in 127.0.0.1 only.
    appendFileSync(join(server.dir, 'data', 'pg_hba.conf'), 'host all all 127.0.0.2/32 trust\n');
    admin = new Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('SELECT pg_reload_conf()');
    // The reload is the postmaster's, after a signal: in once a connection from there is.
    await waitFor(
      async () => {
        const probe = await session('probe', '127.0.0.2');
        await probe.end();
        return true;
      },
      { what: 'pg_hba.conf to let 127.0.0.2 in' },
    );
  });

  afterAll(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
    await admin?.end();
    await server?.remove();
  });

  it('ends every session of the dead pid from this address, a waiting one too, and resolves once none is left', async () => {
    const backend = open();
    await backend.ping();
    const own = await named(sessionName(process.pid));
    const lock = lockKey('sessions-spec');
    await admin.query('SELECT pg_advisory_lock($1::bigint)', [lock]);
    const waiting = await session(sessionName(DEAD));
    const waited = waiting.query('SELECT pg_advisory_lock($1::bigint)', [lock]);
    await session(sessionName(DEAD));
    const neighbour = await session(sessionName(NEIGHBOUR));
    const elsewhere = await session(sessionName(DEAD), '127.0.0.2');
    await waitFor(
      async () =>
        (
          await postgresRows(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [sessionName(DEAD)],
          )
        )[0]?.n === 1,
      { what: 'the dead pid’s session to wait on the lock' },
    );

    expect(await backend.pools.endSessionsOf?.(DEAD, WAIT_MS)).toBe(true);

    // None from this address left the moment it resolved; the waiting call was ended, not granted.
    const [left] = await postgresRows(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE application_name = $1 AND client_addr = '127.0.0.1'`,
      [sessionName(DEAD)],
    );
    expect(left?.n).toBe(0);
    await expect(waited).rejects.toThrow(/terminat/);
    // Another pid whose name starts the same, and another address's session of that pid, go on.
    expect((await neighbour.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect((await elsewhere.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(await named(sessionName(process.pid))).toBe(own);
    await admin.query('SELECT pg_advisory_unlock_all()');
  });

  it('never ends the sessions of the process that asks', async () => {
    const backend = open();
    await backend.ping();
    const own = await named(sessionName(process.pid));
    expect(own).toBeGreaterThan(0);

    expect(await backend.pools.endSessionsOf?.(process.pid, WAIT_MS)).toBe(false);

    expect(await named(sessionName(process.pid))).toBe(own);
    await backend.ping();
  });

  it('cannot tell, and ends nothing, when the url names the sessions itself', async () => {
    const url = new URL(server.url);
    url.searchParams.set('application_name', 'billing');
    const backend = open(url.toString());
    await backend.ping();
    const dead = await session(sessionName(DEAD));

    expect(await backend.pools.endSessionsOf?.(DEAD, WAIT_MS)).toBe(false);

    expect((await dead.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
