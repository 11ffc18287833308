import { join } from 'node:path';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { EnqueueOutcomeUnknownError } from '../../../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskResultDoesNotExist } from '../../../../lib/core/errors/task-result-does-not-exist.error';
import { startNodeProcess, untilOutput, type RunningCli } from '../../../helpers/cli-process';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { readyRecord } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// A client handed in through options.client is the user's, but the backend
// sets it up as it sets up its own connections: the same error listener and
// the same protection of commands in flight when its connection drops. Each
// test has a redis-server of its own, which it stops under the client.

describe('RedisBackend on a client handed in', () => {
  let server: RedisServerHandle;
  const started: RunningCli[] = [];
  beforeEach(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    for (const child of started.splice(0)) await child.killGroup();
    await server.stop();
  });

  it('gets the error listener of one the backend makes: no "Unhandled error event" when its server goes away', async () => {
    // In a process of its own: ioredis prints the unhandled errors to the real console.
    const child = startNodeProcess(
      join(__dirname, '..', '..', '..', 'fixtures', 'redis', 'handed-in-client.child.ts'),
      [server.url, testAlias()],
      started,
      { execArgv: ['-r', join(__dirname, '..', '..', '..', 'helpers', 'transpile-register.js')] },
    );
    await untilOutput(child, /^ready$/m);
    await server.stop();
    expect((await child.exited).code).toBe(0);
    expect(child.output()).not.toContain('Unhandled error event');
    // The backend's own line, once per outage, says what happened instead.
    expect(child.output()).toMatch(/main connection to a Redis client failed: .*ECONNREFUSED/);
    expect(child.output().match(/connection to a Redis client failed/g)).toHaveLength(1);
    // Closing takes the backend's listeners off again: the client is its owner's.
    expect(child.output()).toContain('error listeners after close: 0');
  });

  it('gets the in-flight protection of one the backend makes: a command whose connection dropped fails, and is not sent again', async () => {
    // ioredis's default for a client of one's own: resend what was in flight after a reconnect.
    const client = new Redis(server.url);
    const admin = new Redis(server.url);
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        queues: ['default'],
        options: { client },
      },
      storeRules,
    );
    try {
      await backend.ping();
      const record = readyRecord(backend.alias);
      await admin.client('PAUSE', 10_000, 'WRITE');
      try {
        const enqueued = backend.tasks.enqueue(record).catch((e: unknown) => e);
        await waitFor(async () => (await admin.info('clients')).includes('blocked_clients:1'), {
          what: 'the enqueue to be held by CLIENT PAUSE',
        });
        await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        const error = await enqueued;
        expect(error).toBeInstanceOf(EnqueueOutcomeUnknownError);
        expect((error as EnqueueOutcomeUnknownError).ids).toEqual([record.id]);
      } finally {
        await admin.client('UNPAUSE');
      }
      // Redis dropped it with the connection, and the reconnected client did not send it again.
      await waitFor(() => client.status === 'ready', { what: 'the client to reconnect' });
      await expect(backend.tasks.getResult(record.id)).rejects.toThrow(TaskResultDoesNotExist);
      await backend.close();
    } finally {
      admin.disconnect();
      client.disconnect();
    }
  });
});
