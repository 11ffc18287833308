import { Redis } from 'ioredis';

import { parseRedisBackendConfig } from '../../../../lib/backends/redis/redis-backend-config.parser';
import { RedisConnection } from '../../../../lib/backends/redis/redis-connection';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { BackendCommandError } from '../../../../lib/core/errors/backend-command.error';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../../../lib/core/errors/task-already-exists.error';
import { TaskResultDoesNotExist } from '../../../../lib/core/errors/task-result-does-not-exist.error';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { readyRecord } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// Each failure says what it is: a command Redis refused is BackendCommandError
// (or, refused for a while only, a retryable BackendUnavailableError),
// a bug in the calling code is itself, and an enqueue whose reply was lost says
// its tasks may be stored and names them, so a retry with the same id is safe.
// On a private redis-server: the tests pause its clients and kill connections.

describe('RedisBackend failures', () => {
  let server: RedisServerHandle;
  let admin: Redis;
  const backends: RedisBackend[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const backendAt = (url: string, options: Record<string, unknown> = {}): RedisBackend => {
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        url,
        queues: ['default'],
        options,
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  describe('a command Redis refuses', () => {
    it('is a BackendCommandError naming the script and quoting Redis, and stores nothing', async () => {
      const backend = backendAt(server.url);
      const keys = new RedisKeys(backend.alias);
      const stray = readyRecord(backend.alias);
      const fresh = readyRecord(backend.alias);
      // Someone else's string where a task hash would go.
      await admin.set(keys.task(stray.id), 'not a hash');
      const error = await backend.tasks.enqueueMany([fresh, stray]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendCommandError);
      expect(error).toMatchObject({ command: 'enqueue.lua' });
      expect((error as BackendCommandError).reply).toMatch(/^WRONGTYPE /);
      expect((error as Error).message).toMatch(/Redis refused enqueue\.lua: WRONGTYPE/);
      expect(await admin.exists(keys.task(fresh.id))).toBe(0);
      expect(await admin.get(keys.task(stray.id))).toBe('not a hash');
    });

    it('is retryable on a read-only replica (a failover clears it), and says what a lasting one means', async () => {
      const replica = await startRedisServer(['--replicaof', '127.0.0.1', String(server.port)]);
      try {
        const backend = backendAt(replica.url);
        const error = await backend.tasks
          .enqueue(readyRecord(backend.alias))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BackendUnavailableError);
        expect(error).toMatchObject({ retryable: true });
        expect((error as Error).message).toMatch(/refused enqueue\.lua for now \(READONLY /);
        expect((error as Error).message).toMatch(/if it lasts, the URL names a replica/);
        await backend.close();
      } finally {
        await replica.stop();
      }
    });
  });

  it('lets a bug in the calling code through unchanged', async () => {
    const settings = parseRedisBackendConfig(testAlias(), {
      backend: RedisBackend,
      url: server.url,
    });
    const connection = new RedisConnection(settings);
    try {
      const bug = new RangeError('Maximum call stack size exceeded');
      await expect(connection.run(() => Promise.reject(bug))).rejects.toBe(bug);
      const typo = new TypeError("Cannot read properties of undefined (reading 'id')");
      await expect(
        connection.run(() => {
          throw typo;
        }),
      ).rejects.toBe(typo);
    } finally {
      await connection.close();
    }
  });

  it('stores a bulk enqueue too large to spread into one call', async () => {
    const backend = backendAt(server.url);
    // 2 arguments a task: far more than a JavaScript call can take spread.
    const records = Array.from({ length: 80_000 }, () => readyRecord(backend.alias));
    await expect(backend.tasks.enqueueMany(records)).resolves.toHaveLength(80_000);
    const telemetry = await backend.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts.ready).toBe(80_000);
  });

  describe('an enqueue whose reply is lost', () => {
    /** Waits until Redis holds `count` clients back (paused, with a command waiting). */
    const held = (count: number) =>
      waitFor(async () => (await admin.info('clients')).includes(`blocked_clients:${count}`), {
        what: `${count} client(s) held by CLIENT PAUSE`,
      });

    it('to a command timeout says the task may be stored, names it, and a repeat with its id is safe', async () => {
      const backend = backendAt(server.url, { commandTimeout: 300 });
      await backend.ping();
      const record = readyRecord(backend.alias);
      await admin.client('PAUSE', 1500, 'WRITE');
      const error = await backend.tasks.enqueue(record).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EnqueueOutcomeUnknownError);
      expect(error).toMatchObject({ code: 'ENQUEUE_OUTCOME_UNKNOWN', ids: [record.id] });
      expect((error as Error).message).toMatch(/Command timed out/);
      expect((error as Error).message).toContain(record.id);
      // Redis ran it once the pause ended: it was stored after all.
      const stored = await waitFor(() => backend.tasks.getResult(record.id).catch(() => null), {
        what: 'the paused enqueue to run',
      });
      expect(stored.status).toBe(TaskResultStatus.READY);
      // The caller's retry, with the same id, makes no second task and learns of the first.
      const repeat = await backend.tasks.enqueue(record).catch((e: unknown) => e);
      expect(repeat).toBeInstanceOf(TaskAlreadyExistsError);
      const { existing } = repeat as TaskAlreadyExistsError;
      expect(existing.id).toBe(record.id);
      expect(existing.status).toBe(TaskResultStatus.READY);
      expect(existing.args).toEqual(record.args);
      await expect(existing.refresh()).resolves.toBe(existing);
      expect((await backend.reads.telemetry(60_000)).queues.default.counts.ready).toBe(1);
    });

    it('to a dropped connection says so for every id of a bulk', async () => {
      const backend = backendAt(server.url);
      await backend.ping();
      const records = [readyRecord(backend.alias), readyRecord(backend.alias)];
      await admin.client('PAUSE', 10_000, 'WRITE');
      try {
        const enqueued = backend.tasks.enqueueMany(records).catch((e: unknown) => e);
        await held(1);
        await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        const error = await enqueued;
        expect(error).toBeInstanceOf(EnqueueOutcomeUnknownError);
        expect((error as EnqueueOutcomeUnknownError).ids).toEqual(records.map((r) => r.id));
        expect((error as Error).message).toMatch(/may or may not/);
      } finally {
        await admin.client('UNPAUSE');
      }
      // This time Redis dropped the command with its connection: a retry stores it.
      await expect(backend.tasks.getResult(records[0].id)).rejects.toThrow(TaskResultDoesNotExist);
      await expect(backend.tasks.enqueueMany(records)).resolves.toHaveLength(2);
    });
  });
});
