import { Logger } from '@nestjs/common';
import { Pool } from 'pg';

import { OutboxDatabase } from '../../../../lib/backends/outbox/outbox-database';
import { OUTBOX_DEFAULTS } from '../../../../lib/backends/outbox/outbox-settings';
import { checkout } from '../../../../lib/backends/postgres/postgres-checkout';
import { BlackholeProxy } from '../../../helpers/blackhole-proxy';
import { postgresQuery } from '../../../helpers/postgres-query';
import { startPostgresServer, type PostgresServerHandle } from '../../../helpers/postgres-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';

// A connection the server terminates as soon as it has connected. When the
// connect's last reply (ReadyForQuery) and the server's FATAL come in one
// read, as they do when the process is slow to read its socket, pg handles
// both before any awaited promise resumes: whoever takes the connection must
// listen from the moment pg hands it over, or the FATAL's 'error' event ends
// the process. A proxy holds the server's replies until both are there and
// then delivers them at once. A private cluster: trust auth, so the connect
// needs no reply from the client while its replies are held.

const TERMINATED = /terminating connection due to administrator command/;

describe('a Postgres connection terminated as it connects', () => {
  let server: PostgresServerHandle;
  let proxy: BlackholeProxy;

  beforeAll(async () => {
    server = await startPostgresServer();
  });

  afterAll(async () => {
    await server?.remove();
  });

  beforeEach(async () => {
    proxy = await BlackholeProxy.start(server.port);
  });

  afterEach(async () => {
    await proxy.close();
  });

  /** A url through the proxy whose connections are named `name` in pg_stat_activity. */
  const proxied = (name: string): string =>
    `postgres://postgres@127.0.0.1:${proxy.port}/postgres?application_name=${name}`;

  /**
   * Terminates the connection named `name` once it waits for its first
   * statement, its replies held; then delivers them with the FATAL, in one read.
   */
  const terminateAsItConnects = async (name: string): Promise<void> => {
    const pid = await waitFor(
      async () =>
        (
          await postgresQuery<{ pid: number }>(
            server.url,
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle'`,
            [name],
          )
        )[0]?.pid,
      { what: `the connection ${name}, connected` },
    );
    await postgresQuery(server.url, 'SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(() => proxy.targetEndsHeld() === 1, { what: "the server's hang-up, held" });
    proxy.restore();
  };

  it('a pool connection taken through checkout is lost, not the process', async () => {
    const pool = new Pool({ connectionString: proxied('checkout'), max: 1 });
    try {
      proxy.holdReplies();
      const taking = checkout(pool);
      await terminateAsItConnects('checkout');
      const { lost, release } = await taking;
      const heard = await waitFor(() => lost(), { what: 'the loss, heard' });
      expect(heard.message).toMatch(TERMINATED);
      release();
      expect(pool.totalCount).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it("the outbox relay's own connection is lost, not the process", async () => {
    const database = new OutboxDatabase(
      testAlias(),
      {
        target: { url: proxied('outbox') },
        schema: OUTBOX_DEFAULTS.schema,
        pollIntervalMs: OUTBOX_DEFAULTS.pollInterval,
        markWindowMs: OUTBOX_DEFAULTS.markWindow,
        batchSize: OUTBOX_DEFAULTS.batchSize,
        relay: true,
      },
      new Logger('OutboxDatabase'),
    );
    try {
      proxy.holdReplies();
      const connecting = database.connect();
      await terminateAsItConnects('outbox');
      const client = await connecting;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      await client.end();
    } finally {
      await database.close();
    }
  });
});
