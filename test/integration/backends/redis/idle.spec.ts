import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisRecordCodec } from '../../../../lib/backends/redis/redis-record.codec';
import { WAKE_BOUND } from '../../../../lib/backends/redis/redis-scripts';
import type { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, commandStats, readyRecord, statsDelta, succeeded } from './redis-fixture';

// A private redis-server: INFO commandstats and blocked_clients must see this file's commands only.
describe('RedisBackend idle consumers (no busy polling)', () => {
  let server: RedisServerHandle;
  let fixture: RedisFixture;

  beforeAll(async () => {
    server = await startRedisServer();
    fixture = new RedisFixture(server.url);
  });
  afterEach(() => fixture.cleanup());
  afterAll(async () => {
    await fixture.close();
    await server.stop();
  });

  /** Ready tasks written straight into Redis, without the wake-up tokens enqueue would push. */
  const writeWithoutWakeUps = async (alias: string, records: TaskRecord[]): Promise<void> => {
    const keys = new RedisKeys(alias);
    const codec = new RedisRecordCodec(alias);
    for (const [i, record] of records.entries()) {
      await fixture.admin.hset(keys.task(record.id), 'data', codec.encodeLive(record), 'score', i);
      await fixture.admin.zadd(keys.queue('default'), i, record.id);
    }
  };

  const clientList = async (...filter: string[]): Promise<string> =>
    String(await fixture.admin.call('CLIENT', 'LIST', ...filter));

  const connectionCount = async (): Promise<number> =>
    (await clientList()).split('\n').filter(Boolean).length;

  /** An acquire blocked on 'default' (seen blocked by Redis), and the controller that aborts it. */
  const blockedAcquire = async (
    backend: RedisBackend,
  ): Promise<{ waiting: Promise<TaskRecord[]>; leaving: AbortController }> => {
    const leaving = new AbortController();
    const waiting = backend.leases.acquire(['default'], {
      workerId: 'leaving',
      timeoutMs: 20_000,
      signal: leaving.signal,
    });
    await waitFor(async () => (await blockedClients()) === 1, { what: 'the consumer to block' });
    return { waiting, leaving };
  };

  const blockedClients = async (): Promise<number> => {
    const info = await fixture.admin.info('clients');
    return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
  };

  it('costs a handful of commands while a consumer waits 3 s on an empty queue', async () => {
    const backend = fixture.backend();
    // Warm up: connect, load the script, open the blocking connection (a wait long enough for
    // it to connect on a loaded machine, or the measured wait below would open it).
    await backend.leases.acquire(['default', 'emails'], { workerId: 'w', timeoutMs: 1000 });
    // Then a look that finds work, so the wait below does not follow a look that found none.
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const [warmUp] = await backend.leases.acquire(['default', 'emails'], {
      workerId: 'w',
      timeoutMs: 0,
    });
    await backend.leases.acknowledge([succeeded(warmUp)]);
    const before = await commandStats(fixture.admin);
    const started = Date.now();
    await expect(
      backend.leases.acquire(['default', 'emails'], { workerId: 'w', timeoutMs: 3000 }),
    ).resolves.toEqual([]);
    const waited = Date.now() - started;
    // INFO is ours (and ioredis's ready check when a connection is made under load), not the consumer's.
    const { info: _ourInfo, ...delta } = statsDelta(before, await commandStats(fixture.admin));
    expect(waited).toBeGreaterThanOrEqual(2900);
    // The acquire that found nothing (its ZPOPMIN and stale-token DEL per queue);
    // then on the blocking connection the BLPOP and the acquire sent behind it, which
    // ran when the BLPOP timed out. Neither read Redis's TIME: a look that leases
    // nothing has no time to write. The connection's CLIENT ID (for an abort) was
    // taken by the warm-up's wait. Each look asks once whether any queue is paused (SCARD).
    expect(delta).toEqual({
      evalsha: 2,
      scard: 2,
      zpopmin: 4,
      del: 4,
      blpop: 1,
    });
  }, 10_000);

  it('goes straight to its wait when the call before found the queues empty: one look, not two', async () => {
    const backend = fixture.backend();
    const producer = fixture.backend({}, undefined, backend.alias);
    await producer.ping();
    await producer.tasks.enqueue(readyRecord(backend.alias));
    const [first] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    // Stores the worker's last task and finds nothing more, as a worker going idle does.
    const { acquired } = await backend.leases.acknowledgeAndAcquire(
      [succeeded(first)],
      ['default'],
      {
        workerId: 'w',
        timeoutMs: 5000,
      },
    );
    expect(acquired).toEqual([]);
    const before = await commandStats(fixture.admin);
    const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 5000 });
    await waitFor(async () => (await blockedClients()) === 1, {
      intervalMs: 5,
      what: 'the consumer to block',
    });
    const next = await producer.tasks.enqueue(readyRecord(backend.alias));
    await expect(waiting).resolves.toEqual([expect.objectContaining({ id: next.id })]);
    const { info: _ourInfo, ...delta } = statsDelta(before, await commandStats(fixture.admin));
    // The enqueue, and the acquire sent behind the BLPOP (on a new blocking connection, so
    // ioredis sends it whole once): no acquire of its own before the wait.
    expect((delta.evalsha ?? 0) + (delta.eval ?? 0)).toBe(2);
    expect(delta.blpop).toBe(1);
    // The pickup took the only task: the queue's ZCARD says no wake-up needs chaining, unasked
    // how many tokens wait.
    expect(delta.zcard).toBe(1);
    expect(delta.llen ?? 0).toBe(0);
  });

  it('picks up a task enqueued while it waits in well under 50 ms (median of 5)', async () => {
    const backend = fixture.backend();
    const producer = fixture.backend({}, undefined, backend.alias);
    await producer.ping();
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 5000 });
      await waitFor(async () => (await blockedClients()) === 1, {
        intervalMs: 5,
        what: 'the consumer to block',
      });
      const started = performance.now();
      const record = await producer.tasks.enqueue(readyRecord(backend.alias));
      const [taken] = await waiting;
      latencies.push(performance.now() - started);
      expect(taken.id).toBe(record.id);
      await backend.leases.acknowledge([succeeded(taken)]);
    }
    latencies.sort((a, b) => a - b);
    expect(latencies[2]).toBeLessThan(50);
  }, 20_000);

  it('drops stale wake-up tokens, so going idle after a busy spell costs no extra round trips', async () => {
    const backend = fixture.backend();
    // A busy spell: 50 single enqueues taken by a consumer that never had to wait.
    for (let i = 0; i < 50; i++) {
      await backend.tasks.enqueue(readyRecord(backend.alias));
      const [taken] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.leases.acknowledge([succeeded(taken)]);
    }
    const before = await commandStats(fixture.admin);
    await expect(
      backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 300 }),
    ).resolves.toEqual([]);
    const delta = statsDelta(before, await commandStats(fixture.admin));
    expect(delta.evalsha).toBe(1);
    expect(delta.blpop).toBe(1);
  });

  it('chains wake-ups: one token wakes one consumer, whose full batch wakes the next', async () => {
    const backend = fixture.backend();
    const keys = new RedisKeys(backend.alias);
    const waiting = Array.from({ length: 4 }, (_, w) =>
      backend.leases.acquire(['default'], { workerId: `w${w}`, max: 1, timeoutMs: 5000 }),
    );
    await waitFor(async () => (await blockedClients()) === 4, { what: 'four blocked consumers' });
    // Four tasks written behind the backend's back (no tokens), then a single wake-up token.
    const records = Array.from({ length: 4 }, () => readyRecord(backend.alias));
    await writeWithoutWakeUps(backend.alias, records);
    await fixture.admin.lpush(keys.wake('default'), '1');
    const ids = (await Promise.all(waiting)).flat().map((r) => r.id);
    expect(ids.sort()).toEqual(records.map((r) => r.id).sort());
  }, 10_000);

  it('chains from a busy worker too: its full batch wakes a waiting consumer when no token is left', async () => {
    const busy = fixture.backend();
    const idle = fixture.backend({}, undefined, busy.alias);
    const waiting = idle.leases.acquire(['default'], { workerId: 'idle', max: 1, timeoutMs: 5000 });
    await waitFor(async () => (await blockedClients()) === 1, {
      what: 'the idle consumer to block',
    });
    // Two tasks and no token: only the busy worker's chained wake-up can end the wait early.
    const records = Array.from({ length: 2 }, () => readyRecord(busy.alias));
    await writeWithoutWakeUps(busy.alias, records);
    const [first] = await busy.leases.acquire(['default'], {
      workerId: 'busy',
      max: 1,
      timeoutMs: 0,
    });
    expect(first.id).toBe(records[0].id);
    const started = Date.now();
    await expect(waiting).resolves.toEqual([expect.objectContaining({ id: records[1].id })]);
    expect(Date.now() - started).toBeLessThan(2000);
  }, 10_000);

  it("asks a busy worker's token list first: with a backlog's tokens waiting, one call settles the chain", async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueueMany(Array.from({ length: 3 }, () => readyRecord(backend.alias)));
    const [first] = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 1,
      timeoutMs: 0,
    });
    const before = await commandStats(fixture.admin);
    const { acquired } = await backend.leases.acknowledgeAndAcquire(
      [succeeded(first)],
      ['default'],
      {
        workerId: 'w',
        max: 1,
        timeoutMs: 0,
      },
    );
    expect(acquired).toHaveLength(1);
    const delta = statsDelta(before, await commandStats(fixture.admin));
    expect(delta.llen).toBe(1);
    expect(delta.zcard ?? 0).toBe(0);
  });

  it('passes a wake-up on when a wait is aborted, so a token it may have swallowed is not lost', async () => {
    const backend = fixture.backend();
    const leaving = new AbortController();
    const aborted = backend.leases.acquire(['default'], {
      workerId: 'leaving',
      timeoutMs: 5000,
      signal: leaving.signal,
    });
    await waitFor(async () => (await blockedClients()) === 1, {
      what: 'the first consumer to block',
    });
    const staying = backend.leases.acquire(['default'], { workerId: 'staying', timeoutMs: 5000 });
    await waitFor(async () => (await blockedClients()) === 2, { what: 'both consumers to block' });
    // Work that is ready but whose token is gone, as if the leaving consumer had swallowed it.
    const record = readyRecord(backend.alias);
    await writeWithoutWakeUps(backend.alias, [record]);
    leaving.abort();
    await expect(aborted).resolves.toEqual([]);
    expect((await staying).map((r) => r.id)).toEqual([record.id]);
  }, 10_000);

  it('leases a task that arrives during a wait on the blocking connection, timed from the pickup', async () => {
    const leaseTtl = 4000;
    const backend = fixture.backend({ leaseTtl });
    const producer = fixture.backend({}, undefined, backend.alias);
    await producer.ping();
    const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 5000 });
    await waitFor(async () => (await blockedClients()) === 1, { what: 'the consumer to block' });
    const blocked = /id=(\d+) [^\n]*flags=b/.exec(await clientList())?.[1];
    const before = await commandStats(fixture.admin);
    // Long enough after the acquire was sent that a lease timed from then would show it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const enqueuedAt = Date.now();
    const record = await producer.tasks.enqueue(readyRecord(backend.alias));
    const [taken] = await waiting;
    const pickedUpBy = Date.now();
    // The producer's enqueue and the acquire that rode behind the BLPOP: no second acquire.
    const delta = statsDelta(before, await commandStats(fixture.admin));
    expect((delta.evalsha ?? 0) + (delta.eval ?? 0)).toBe(2);
    // ... and it ran on the connection that was blocked, so there was no hop back to the client.
    expect(await clientList('ID', String(blocked))).toMatch(/ cmd=eval(sha)? /);
    expect(taken.id).toBe(record.id);
    const lastAttempt = taken.lastAttemptedAt?.getTime() ?? 0;
    expect(lastAttempt).toBeGreaterThanOrEqual(enqueuedAt - 50);
    expect(lastAttempt).toBeLessThanOrEqual(pickedUpBy + 50);
    const keys = new RedisKeys(backend.alias);
    const deadline = Number(await fixture.admin.zscore(keys.running('default'), record.id));
    expect(deadline).toBe(lastAttempt + leaseTtl);
    await backend.leases.acknowledge([succeeded(taken)]);
  }, 10_000);

  it('ends an aborted wait without dropping its connection, and gives back what it leased', async () => {
    const backend = fixture.backend();
    const { waiting: first, leaving } = await blockedAcquire(backend);
    const connected = await connectionCount();
    // Ready behind the wait's back: the acquire behind the BLPOP leases it as the abort ends the wait.
    const record = readyRecord(backend.alias);
    await writeWithoutWakeUps(backend.alias, [record]);
    const started = Date.now();
    leaving.abort();
    await expect(first).resolves.toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
    const [back] = await backend.reads.peek('default', 'ready', 10);
    expect(back?.id).toBe(record.id);
    const [taken] = await backend.leases.acquire(['default'], {
      workerId: 'next',
      timeoutMs: 1000,
    });
    expect(taken.id).toBe(record.id);
    expect(await connectionCount()).toBe(connected);
    await backend.leases.acknowledge([succeeded(taken)]);
  }, 10_000);

  it('asks a reconnected blocking connection its new id, so an abort still ends the wait at once', async () => {
    const backend = fixture.backend();
    await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 100 });
    // Every connection but the admin's is dropped; ioredis reconnects them with new ids.
    await fixture.admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await backend.ping();
    const { waiting, leaving } = await blockedAcquire(backend);
    const connected = await connectionCount();
    const started = Date.now();
    leaving.abort();
    await expect(waiting).resolves.toEqual([]);
    // An UNBLOCK of the old id would miss for half a second, then the connection would be cut.
    expect(Date.now() - started).toBeLessThan(400);
    expect(await connectionCount()).toBe(connected);
  }, 10_000);

  it('keeps the tokens nobody pops bounded, trimming only once the list doubled', async () => {
    const backend = fixture.backend();
    const keys = new RedisKeys(backend.alias);
    const lengths: number[] = [];
    for (let i = 0; i < 2 * WAKE_BOUND + 20; i++) {
      await backend.tasks.enqueue(readyRecord(backend.alias));
      lengths.push(await fixture.admin.llen(keys.wake('default')));
    }
    expect(Math.max(...lengths)).toBe(2 * WAKE_BOUND);
    // Trimmed back to the bound when it passed twice that, then growing again.
    expect(lengths.at(-1)).toBe(WAKE_BOUND + 20 - 1);
    // Once its second's ingress field and its token list exist, an enqueue makes eight
    // calls: TIME (Redis's clock dates the ingress), HSETNX, PEXPIRE, INCRBY, ZADD,
    // HINCRBY, LPUSH (no PEXPIREAT, no LTRIM), and the EXISTS that finds nobody listening
    // to live events (no PUBLISH).
    // The field is per second: the count is taken from two enqueues within one second.
    const second = (): number => Math.floor(Date.now() / 1000);
    let delta: Record<string, number> = {};
    for (let attempt = 0; attempt < 5; attempt++) {
      const first = second();
      await backend.tasks.enqueue(readyRecord(backend.alias));
      const before = await commandStats(fixture.admin);
      await backend.tasks.enqueue(readyRecord(backend.alias));
      const { info: _ourInfo, ...counted } = statsDelta(before, await commandStats(fixture.admin));
      delta = counted;
      if (second() === first) break;
    }
    expect(delta).toEqual({
      evalsha: 1,
      time: 1,
      exists: 1,
      hsetnx: 1,
      incrby: 1,
      zadd: 1,
      hincrby: 1,
      lpush: 1,
    });
  });

  it('leases and acknowledges 100 tasks in two round trips (one script call each)', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueueMany(Array.from({ length: 100 }, () => readyRecord(backend.alias)));
    await backend.leases.acquire(['default'], { workerId: 'warm-up', max: 1, timeoutMs: 0 });
    await backend.leases.acknowledge([]);
    const before = await commandStats(fixture.admin);
    const batch = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 100,
      timeoutMs: 0,
    });
    await backend.leases.acknowledge(batch.map((r) => succeeded(r)));
    const delta = statsDelta(before, await commandStats(fixture.admin));
    expect(batch).toHaveLength(99);
    // Round trips: evalsha/eval are the only commands the client sent (besides our INFO).
    expect((delta.evalsha ?? 0) + (delta.eval ?? 0)).toBe(2);
    const inside = Object.entries(delta)
      .filter(([name]) => !['evalsha', 'eval', 'info'].includes(name))
      .reduce((sum, [, calls]) => sum + calls, 0);
    // Per task inside Lua: HMGET + HSET (acquire), ZREM + SET + DEL + ZADD (acknowledge).
    expect(inside / batch.length).toBeLessThan(6.2);
  });
});
