import { Redis } from 'ioredis';

import { GATHERED_BATCH } from '../../../../lib/backends/redis/redis-enqueuer';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../../../lib/core/errors/task-already-exists.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { freePort } from '../../../helpers/free-port';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { commandStats, readyRecord, statsDelta } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// Single enqueues made at once go to Redis in script calls of up to
// GATHERED_BATCH records, each caller still told of its own task. On a private redis-server, so INFO
// commandstats counts this file's calls only.

describe('RedisBackend concurrent enqueues', () => {
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
        queues: ['default', 'emails'],
        options,
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };
  /** A backend whose scripts are loaded, so every later call is one EVALSHA. */
  const warmBackend = async (): Promise<RedisBackend> => {
    const backend = backendAt(server.url);
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const keyed = readyRecord(backend.alias);
    await backend.tasks.enqueue({
      ...keyed,
      task: { ...keyed.task, unique: { key: 'warm', mode: 'unfinished' } },
    });
    return backend;
  };
  const scriptCalls = (delta: Record<string, number>): number =>
    (delta.evalsha ?? 0) + (delta.eval ?? 0);

  /** Script calls for `count` enqueues made at once. */
  const callsFor = (count: number): number => Math.ceil(count / GATHERED_BATCH);

  it('sends 100 enqueues made at once in batches of GATHERED_BATCH', async () => {
    const backend = await warmBackend();
    const records = Array.from({ length: 100 }, (_, i) =>
      readyRecord(backend.alias, { args: [i] }),
    );
    const before = await commandStats(admin);
    const stored = await Promise.all(records.map((record) => backend.tasks.enqueue(record)));
    const delta = statsDelta(before, await commandStats(admin));
    expect(stored).toEqual(records);
    expect(scriptCalls(delta)).toBe(callsFor(100));
  });

  it('sends enqueues with unique keys in the same batches', async () => {
    const backend = await warmBackend();
    const records = Array.from({ length: 100 }, (_, i) => {
      const record = readyRecord(backend.alias, { args: [i] });
      return i % 2 === 0
        ? {
            ...record,
            task: { ...record.task, unique: { key: `k${i % 10}`, mode: 'unfinished' as const } },
          }
        : record;
    });
    const before = await commandStats(admin);
    const stored = await Promise.all(records.map((record) => backend.tasks.enqueue(record)));
    const delta = statsDelta(before, await commandStats(admin));
    expect(scriptCalls(delta)).toBe(callsFor(100));
    // Keys k0, k2, ... k8: the first record of each takes it, the later ones get it back.
    expect(new Set(stored.map((record) => record.id)).size).toBe(50 + 5);
  });

  it('gathers callers that a reply wakes together: 100 callers of 5 enqueues each take about 5 rounds of batches', async () => {
    const backend = await warmBackend();
    const before = await commandStats(admin);
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = 0; i < 5; i++) await backend.tasks.enqueue(readyRecord(backend.alias));
      }),
    );
    const delta = statsDelta(before, await commandStats(admin));
    // Each reply wakes its batch's callers at once; their next enqueues leave
    // together again, so 500 enqueues take about 5 rounds, far from 500 calls.
    expect(scriptCalls(delta)).toBeLessThanOrEqual(2 * 5 * callsFor(100));
    expect((await backend.reads.telemetry(60_000)).queues.default.counts.ready).toBe(502);
  });

  it('stores the rest of a batch around a stored id, leaving the stored task as it was', async () => {
    const backend = backendAt(server.url);
    const keys = new RedisKeys(backend.alias);
    const taken = await backend.tasks.enqueue(readyRecord(backend.alias, { args: ['taken'] }));
    const takenHash = await admin.hgetall(keys.task(taken.id));
    const later = new Date(Date.now() + 60_000);
    const sent = [
      readyRecord(backend.alias, { args: ['a'] }),
      readyRecord(backend.alias, { args: ['b'], runAfter: later }),
      readyRecord(backend.alias, { id: taken.id, args: ['again'] }),
      readyRecord(backend.alias, { args: ['c'], queue: 'emails' }),
      readyRecord(backend.alias, { args: ['d'] }),
    ];
    const outcomes = await Promise.all(
      sent.map((record) => backend.tasks.enqueue(record).catch((error: Error) => error)),
    );
    expect(outcomes[2]).toBeInstanceOf(TaskAlreadyExistsError);
    expect((outcomes[2] as TaskAlreadyExistsError).existing.args).toEqual(['taken']);
    expect(await admin.hgetall(keys.task(taken.id))).toEqual(takenHash);
    expect(outcomes.filter((_, i) => i !== 2)).toEqual(sent.filter((_, i) => i !== 2));
    const ready = await backend.reads.peek('default', 'ready', 10);
    expect(ready.map((record) => record.args[0])).toEqual(['taken', 'a', 'd']);
    const deferred = await backend.reads.peek('default', 'deferred', 10);
    expect(deferred.map((record) => record.args[0])).toEqual(['b']);
    expect(
      (await backend.reads.peek('emails', 'ready', 10)).map((record) => record.args[0]),
    ).toEqual(['c']);
    const telemetry = await backend.reads.telemetry(60_000);
    // The taken one and four of the five.
    expect(telemetry.queues.default.rates.ingress + telemetry.queues.emails.rates.ingress).toBe(5);
  });

  it('tells each caller of a batch whose reply is lost about its own task only', async () => {
    const backend = backendAt(server.url, { commandTimeout: 300 });
    await backend.ping();
    const records = [1, 2, 3].map((n) => readyRecord(backend.alias, { args: [n] }));
    await admin.client('PAUSE', 1500, 'WRITE');
    const errors = await Promise.all(
      records.map((record) => backend.tasks.enqueue(record).catch((e: unknown) => e)),
    );
    errors.forEach((error, i) => {
      expect(error).toBeInstanceOf(EnqueueOutcomeUnknownError);
      expect((error as EnqueueOutcomeUnknownError).ids).toEqual([records[i].id]);
      expect((error as Error).message).toMatch(/enqueue of 1 task\(s\)/);
    });
    // Redis ran the call once the pause ended: all three were stored.
    for (const record of records) {
      const stored = await waitFor(() => backend.tasks.getResult(record.id).catch(() => null), {
        what: 'the paused enqueue to run',
      });
      expect(stored.status).toBe(TaskResultStatus.READY);
    }
  });

  it('fails every caller with BackendUnavailableError when Redis cannot be reached', async () => {
    const backend = backendAt(`redis://127.0.0.1:${await freePort()}/0`, { connectTimeout: 500 });
    const records: TaskRecord[] = [1, 2, 3].map((n) => readyRecord(backend.alias, { args: [n] }));
    const errors = await Promise.all(
      records.map((record) => backend.tasks.enqueue(record).catch((e: unknown) => e)),
    );
    for (const error of errors) expect(error).toBeInstanceOf(BackendUnavailableError);
  });
});
