import { createServer, connect, type Server, type Socket } from 'node:net';

import { newRecord } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { freePort } from '../../../helpers/free-port';
import { testAlias } from '../../../helpers/test-alias';
import { createTestSchema } from '../../../helpers/postgres-schema';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';

// A backend that cannot connect at start says why, where (the url without
// its password) and what to check, with the error an outage gives.

describe('PostgresBackend: a connection refused at start', () => {
  const backends: PostgresBackend[] = [];

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
  });

  /** The run's Postgres url with `change` applied (user, password, database, port). */
  const urlWith = (change: (url: URL) => void): string => {
    const url = new URL(testPostgresUrl());
    change(url);
    return url.toString();
  };

  /** What the first call of a backend on `url` is refused with. */
  const refusal = async (url: string): Promise<BackendUnavailableError> => {
    const backend = new PostgresBackend(
      testAlias(),
      { backend: PostgresBackend, url, options: { schema: 'never_made' } },
      storeRules,
    );
    backends.push(backend);
    const error = await backend.ping().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    return error as BackendUnavailableError;
  };

  it('no server at the port: names host and port, and says to check the server runs there', async () => {
    const port = await freePort();
    const refused = await refusal(
      urlWith((url) => {
        url.port = String(port);
        url.password = 'secret';
      }),
    );
    expect(refused.message).toContain(`127.0.0.1:${port}`);
    expect(refused.message).toContain('ECONNREFUSED');
    expect(refused.message).toContain("Check that the server runs at the url's host and port");
    expect(refused.message).not.toContain('secret');
    expect(refused.retryable).toBe(true);
  });

  it('a user the server refuses: says to check the user, the password and pg_hba.conf', async () => {
    const refused = await refusal(
      urlWith((url) => {
        url.username = 'no_such_user';
        url.password = 'secret';
      }),
    );
    expect(refused.message).toMatch(/\(28000 role "no_such_user" does not exist\)/);
    expect(refused.message).toContain("Check the url's user and password");
    expect(refused.message).toContain('pg_hba.conf');
    expect(refused.message).toContain('no_such_user:***@');
    expect(refused.message).not.toContain('secret');
  });

  it('a database that does not exist: names it and says to create it', async () => {
    const refused = await refusal(urlWith((url) => (url.pathname = '/no_such_database')));
    expect(refused.message).toContain('(3D000 database "no_such_database" does not exist)');
    expect(refused.message).toContain('Create the database (createdb <name>)');
    expect(refused.message).toContain('/no_such_database');
  });

  it('works once the server is up, without a restart of the app', async () => {
    const created = await createTestSchema();
    const target = new URL(created.url);
    const port = await freePort();
    const alias = testAlias();
    const backend = new PostgresBackend(
      alias,
      {
        backend: PostgresBackend,
        url: urlWith((url) => (url.port = String(port))),
        options: { schema: created.name },
      },
      storeRules,
    );
    backends.push(backend);
    const sockets: Socket[] = [];
    let relay: Server | undefined;
    try {
      await expect(backend.ping()).rejects.toBeInstanceOf(BackendUnavailableError);
      // The server comes up at the url's port: a relay to the run's Postgres.
      relay = createServer((socket) => {
        const upstream = connect(Number(target.port), target.hostname);
        sockets.push(socket, upstream);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      await new Promise<void>((resolve) => relay?.listen(port, '127.0.0.1', resolve));
      await backend.ping();
      const task = await backend.tasks.enqueue(newRecord(alias));
      await expect(
        backend.leases.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0 }),
      ).resolves.toMatchObject([{ id: task.id }]);
    } finally {
      for (const backend of backends.splice(0)) await backend.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
      await created.drop();
    }
  });
});
