import { Redis } from 'ioredis';

import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { EnqueueOutcomeUnknownError } from '../../../../lib/core/errors/enqueue-outcome-unknown.error';
import { ReplicasBehindError } from '../../../../lib/core/errors/replicas-behind.error';
import { TaskAlreadyExistsError } from '../../../../lib/core/errors/task-already-exists.error';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { BlackholeProxy } from '../../../helpers/blackhole-proxy';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { commandStats, readyRecord, succeeded } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// waitForReplicas on a primary with one replica, which reaches it through a
// proxy that can hold the replication stream back: a replica in step
// confirms every write, a lagging one confirms nothing, and each call that
// wrote a task says so in its own way.

const WAIT_MS = 300;

describe('RedisBackend waitForReplicas', () => {
  let primary: RedisServerHandle;
  let replica: RedisServerHandle;
  let proxy: BlackholeProxy;
  let admin: Redis;
  let replicaAdmin: Redis;
  const backends: RedisBackend[] = [];

  beforeAll(async () => {
    primary = await startRedisServer();
    proxy = await BlackholeProxy.start(primary.port);
    replica = await startRedisServer(['--replicaof', '127.0.0.1', String(proxy.port)]);
    admin = new Redis(primary.url);
    replicaAdmin = new Redis(replica.url);
    await waitFor(
      async () => (await replicaAdmin.info('replication')).includes('master_link_status:up'),
      { what: 'the replica to replicate' },
    );
  });
  afterEach(async () => {
    proxy.restore();
    for (const backend of backends.splice(0)) await backend.close();
  });
  afterAll(async () => {
    admin.disconnect();
    replicaAdmin.disconnect();
    await replica?.stop();
    await proxy?.close();
    await primary?.stop();
  });

  const backendWith = (options: Record<string, unknown>): RedisBackend => {
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        url: primary.url,
        queues: ['default'],
        options,
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };
  const waiting = () => backendWith({ waitForReplicas: { count: 1, timeoutMs: WAIT_MS } });
  const onReplica = (alias: string, id: string) =>
    replicaAdmin.exists(new RedisKeys(alias).task(id));
  const take = (backend: RedisBackend) =>
    backend.leases.acquire(['default'], { workerId: 'w-1', timeoutMs: 0 });

  it('sends no WAIT when off: a task costs the commands it always did', async () => {
    const backend = backendWith({});
    await backend.ping();
    await admin.config('RESETSTAT');
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const [leased] = await take(backend);
    await backend.leases.acknowledge([succeeded(leased)]);
    expect(leased.id).toBe(record.id);
    expect((await commandStats(admin)).wait).toBeUndefined();
  });

  it('answers an enqueue, a lease and an outcome once the replica has them, one WAIT for many', async () => {
    const backend = waiting();
    await backend.ping();
    await admin.config('RESETSTAT');
    const records = await Promise.all(
      Array.from({ length: 200 }, () => backend.tasks.enqueue(readyRecord(backend.alias))),
    );
    // Answered means replicated: the replica has each one already.
    const copies = await Promise.all(records.map((r) => onReplica(backend.alias, r.id)));
    expect(copies.every((exists) => exists === 1)).toBe(true);
    const [leased] = await take(backend);
    await expect(backend.leases.acknowledge([succeeded(leased)])).resolves.toEqual([
      'acknowledged',
    ]);
    // Enqueues answered together share their WAIT (the coalescer's calls and the WAITs alike).
    const waits = (await commandStats(admin)).wait ?? 0;
    expect(waits).toBeGreaterThanOrEqual(3);
    expect(waits).toBeLessThan(records.length / 4);
  });

  it('fails an enqueue the lagging replica did not confirm as outcome unknown; sent again once it caught up, it is found stored', async () => {
    const backend = waiting();
    await backend.ping();
    const record = readyRecord(backend.alias);
    proxy.blackhole();
    const started = Date.now();
    const error = await backend.tasks.enqueue(record).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 10);
    expect(error).toBeInstanceOf(EnqueueOutcomeUnknownError);
    expect(error).toMatchObject({ code: 'ENQUEUE_OUTCOME_UNKNOWN', ids: [record.id] });
    expect((error as Error).message).toContain(record.id);
    expect((error as Error).message).toMatch(/only 0 of the 1 replica\(s\)/);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(ReplicasBehindError);
    expect(cause).toMatchObject({ confirmed: 0, required: 1, retryable: true });
    // The primary has it; a failover now would lose it, which is why its outcome is unknown.
    expect(await onReplica(backend.alias, record.id)).toBe(0);
    proxy.restore();
    await waitFor(async () => (await onReplica(backend.alias, record.id)) === 1, {
      what: 'the replica to catch up',
    });
    await expect(backend.tasks.enqueue(record)).rejects.toThrow(TaskAlreadyExistsError);
  });

  it('fails each of the single enqueues gathered in one call with its own id', async () => {
    const backend = waiting();
    await backend.ping();
    const records = [readyRecord(backend.alias), readyRecord(backend.alias)];
    proxy.blackhole();
    const errors = await Promise.all(records.map((r) => backend.tasks.enqueue(r).catch((e) => e)));
    expect(errors.map((e: EnqueueOutcomeUnknownError) => e.ids)).toEqual(
      records.map((r) => [r.id]),
    );
  });

  it('fails a lease and an outcome the lagging replica did not confirm with ReplicasBehindError, and takes the outcome sent again', async () => {
    const backend = waiting();
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    proxy.blackhole();
    const leaseError = await take(backend).catch((e: unknown) => e);
    expect(leaseError).toBeInstanceOf(ReplicasBehindError);
    expect((leaseError as Error).message).toMatch(/a lease of 1 task\(s\) was applied/);
    proxy.restore();
    // The lease was made: it is this worker's, and the replica has it now.
    await waitFor(
      async () => (await replicaAdmin.zcard(new RedisKeys(backend.alias).running('default'))) === 1,
      { what: 'the replica to have the lease' },
    );
    const leased = await backend.tasks.getResult(record.id);
    expect(leased.status).toBe(TaskResultStatus.RUNNING);
    proxy.blackhole();
    const outcome = succeeded(leased);
    const ackError = await backend.leases.acknowledge([outcome]).catch((e: unknown) => e);
    expect(ackError).toBeInstanceOf(ReplicasBehindError);
    expect(ackError).toMatchObject({ retryable: true, confirmed: 0, required: 1 });
    proxy.restore();
    // A worker sends it again (its outcome queue does): the store has it, and says so.
    await expect(backend.leases.acknowledge([outcome])).resolves.toEqual(['already-stored']);
    expect((await backend.tasks.getResult(record.id)).status).toBe(TaskResultStatus.SUCCESSFUL);
  });
});
