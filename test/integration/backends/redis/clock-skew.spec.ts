import { Logger } from '@nestjs/common';

import type { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { PoolHeartbeatLapsedError } from '../../../../lib/core/errors/pool-heartbeat-lapsed.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { nextAttempt } from '../../../../lib/lifecycle/retry-policy';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';

// Every backend of this file shares one process, so one Date.now: each call
// is made on a clock set for it (the skew of the host it stands for), while
// Redis keeps its own. Redis runs on this machine, so its clock is the real one.

const MINUTE = 60_000;
const AHEAD = 10 * MINUTE;
const BEHIND = -10 * MINUTE;
const realNow = Date.now.bind(Date);

/** Runs `call` on a host whose clock is `skewMs` off (Date.now only: what the code reads). */
async function onClock<T>(skewMs: number, call: () => Promise<T>): Promise<T> {
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
  try {
    return await call();
  } finally {
    spy.mockRestore();
  }
}

describe('RedisBackend with hosts whose clocks are 10 minutes apart', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  /** Redis's clock (ms), read by the test's own client. */
  const redisNow = (): Promise<number> => fixture.storeNow();

  /** Two instances on one alias: a worker's host and another pool's. */
  const pair = (options = {}): [RedisBackend, RedisBackend] => {
    const worker = fixture.backend(options);
    return [worker, fixture.backend(options, undefined, worker.alias)];
  };

  it("a pool behind keeps its leases and its heartbeat against the maintenance pass of a pool ahead, on Redis's clock", async () => {
    const [behind, ahead] = pair({ leaseTtl: 2 * MINUTE });
    const keys = fixture.keys(behind);
    await behind.tasks.enqueueMany([readyRecord(behind.alias), readyRecord(behind.alias)]);
    const before = await redisNow();
    const leased = await onClock(BEHIND, async () => {
      await behind.pools.beat('pool-behind', 30_000);
      return behind.leases.acquire(['default'], {
        workerId: 'behind:1-1',
        max: 2,
        timeoutMs: 0,
        poolId: 'pool-behind',
      });
    });
    const after = await redisNow();
    expect(leased).toHaveLength(2);
    // Stamped by Redis, not by the worker 10 minutes behind.
    for (const record of leased) {
      expect(record.startedAt!.getTime()).toBeGreaterThanOrEqual(before);
      expect(record.startedAt!.getTime()).toBeLessThanOrEqual(after);
      expect(record.lastAttemptedAt).toEqual(record.startedAt);
    }
    const deadline = Number(await fixture.admin.zscore(keys.running('default'), leased[0].id));
    expect(deadline).toBeGreaterThanOrEqual(before + 2 * MINUTE);
    expect(deadline).toBeLessThanOrEqual(after + 2 * MINUTE);
    const beat = Number(await fixture.admin.zscore(keys.pools, 'pool-behind'));
    expect(beat).toBeGreaterThanOrEqual(before + 30_000);
    expect(beat).toBeLessThanOrEqual(after + 30_000);

    const report = await onClock(AHEAD, () => runMaintenancePass(ahead, { poolId: 'pool-ahead' }));
    expect(report).toMatchObject({ reaped: 0, recovered: 0, failedSteps: [] });
    for (const record of leased) {
      await expect(ahead.tasks.getResult(record.id)).resolves.toMatchObject({
        status: TaskResultStatus.RUNNING,
      });
    }
    const stored = await onClock(BEHIND, () =>
      behind.leases.acknowledge(leased.map((record) => succeeded(record))),
    );
    expect(stored).toEqual(['acknowledged', 'acknowledged']);
  });

  it('a pool ahead cannot make its heartbeat or its leases outlive them: both lapse on time', async () => {
    const [ahead, maintainer] = pair({ leaseTtl: 300 });
    await ahead.tasks.enqueueMany([readyRecord(ahead.alias), readyRecord(ahead.alias)]);
    const [pooled, plain] = await onClock(AHEAD, async () => {
      await ahead.pools.beat('pool-ahead', 200);
      const [first] = await ahead.leases.acquire(['default'], {
        workerId: 'ahead:1-1',
        timeoutMs: 0,
        poolId: 'pool-ahead',
      });
      const [second] = await ahead.leases.acquire(['default'], {
        workerId: 'ahead:1-2',
        timeoutMs: 0,
      });
      return [first, second];
    });
    const beatAt = Number(await fixture.admin.zscore(fixture.keys(ahead).pools, 'pool-ahead'));
    await waitFor(async () => (await redisNow()) > beatAt, {
      what: "the pool's heartbeat to lapse",
    });
    expect((await runMaintenancePass(maintainer)).recovered).toBe(1);
    await expect(maintainer.tasks.getResult(pooled.id)).resolves.toMatchObject({
      status: TaskResultStatus.FAILED,
      errors: [expect.objectContaining({ className: 'WorkerLost' })],
    });
    await waitFor(async () => (await redisNow()) > plain.startedAt!.getTime() + 300, {
      what: 'the lease to end',
    });
    expect((await runMaintenancePass(maintainer)).reaped).toBe(1);
    await expect(maintainer.tasks.getResult(plain.id)).resolves.toMatchObject({
      errors: [expect.objectContaining({ className: 'AcknowledgementTimeout' })],
    });
  });

  it('a runAfter set on a clock behind is a wait: neither a maintenance pass ahead runs it early nor one behind late', async () => {
    const [enqueuer, maintainer] = pair();
    const keys = fixture.keys(enqueuer);
    const before = await redisNow();
    const record = await onClock(BEHIND, () =>
      enqueuer.tasks.enqueue(readyRecord(enqueuer.alias, { runAfter: new Date(Date.now() + 400) })),
    );
    const after = await redisNow();
    const due = Number(await fixture.admin.zscore(keys.deferred('default'), record.id));
    expect(due).toBeGreaterThanOrEqual(before + 400 - 5);
    expect(due).toBeLessThanOrEqual(after + 400);
    expect((await onClock(AHEAD, () => runMaintenancePass(maintainer))).promoted).toBe(0);
    await waitFor(async () => (await redisNow()) > due, { what: 'the task to be due' });
    expect((await onClock(BEHIND, () => runMaintenancePass(maintainer))).promoted).toBe(1);
    const [leased] = await maintainer.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    expect(leased.id).toBe(record.id);
    // What the enqueuer asked for, on its own clock.
    expect(leased.task.runAfter).toEqual(record.task.runAfter);
  });

  it("a retry's backoff is waited in full, whatever the clock of the worker that chose it", async () => {
    const [worker, maintainer] = pair();
    const keys = fixture.keys(worker);
    const backoff = { type: 'fixed' as const, delayMs: 400, jitter: false };
    const record = readyRecord(worker.alias);
    await worker.tasks.enqueue({ ...record, task: { ...record.task, retries: 2, backoff } });
    for (const skew of [BEHIND, AHEAD]) {
      const [leased] = await worker.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      const before = await redisNow();
      await onClock(skew, async () => {
        const next: TaskRecord = nextAttempt(
          leased,
          { className: 'Error', traceback: 'Error: once' },
          new Date(Date.now()),
        );
        expect(await worker.leases.retry([next])).toEqual(['retried']);
      });
      const due = Number(await fixture.admin.zscore(keys.deferred('default'), leased.id));
      expect(due).toBeGreaterThanOrEqual(before + 400 - 5);
      expect(due).toBeLessThanOrEqual((await redisNow()) + 400);
      expect((await onClock(AHEAD, () => runMaintenancePass(maintainer))).promoted).toBe(0);
      await waitFor(async () => (await redisNow()) > due, { what: 'the retry to be due' });
      expect((await onClock(BEHIND, () => runMaintenancePass(maintainer))).promoted).toBe(1);
    }
  });

  it("history, telemetry windows and the maintenance heartbeat are read on Redis's clock", async () => {
    const [worker, reader] = pair({ resultTtl: MINUTE });
    await onClock(BEHIND, () => worker.tasks.enqueue(readyRecord(worker.alias)));
    const [leased] = await worker.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await onClock(BEHIND, () => worker.leases.acknowledge([succeeded(leased)]));
    // A maintenance pass behind, read by an inspector ahead.
    const pass = await onClock(BEHIND, () => runMaintenancePass(worker));
    expect(pass.trimmed).toBe(0);
    await onClock(AHEAD, async () => {
      // A minute's results are not trimmed by a maintenance pass ten minutes ahead.
      expect((await runMaintenancePass(reader)).trimmed).toBe(0);
      const { queues } = await reader.reads.telemetry(MINUTE);
      expect(queues.default.counts.successful).toBe(1);
      expect(queues.default.rates).toMatchObject({ ingress: 1, egress: 1, failed: 0 });
      const shown = await reader.reads.peek('default', 'successful', 10);
      expect(shown.map((record) => record.id)).toEqual([leased.id]);
      const heartbeat = await reader.reads.maintenanceHeartbeat();
      expect(Date.now() - heartbeat!.getTime()).toBeLessThan(5000);
      expect(Date.now() - heartbeat!.getTime()).toBeGreaterThanOrEqual(0);
    });
  });
});

describe('RedisBackend acquire under a pool whose heartbeat lapsed', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('leases nothing under a pool that never beat, and leases once it beats', async () => {
    const backend = fixture.backend();
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const options = { workerId: 'w', timeoutMs: 0, poolId: 'pool-1' };
    await expect(backend.leases.acquire(['default'], options)).rejects.toThrow(
      PoolHeartbeatLapsedError,
    );
    await expect(backend.leases.acquire(['default'], options)).rejects.toThrow(
      'worker pool "pool-1" leases nothing: its heartbeat in the store is missing',
    );
    await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
      status: TaskResultStatus.READY,
    });
    await backend.pools.beat('pool-1', 60_000);
    await expect(backend.leases.acquire(['default'], options)).resolves.toEqual([
      expect.objectContaining({ id: record.id }),
    ]);
  });

  it('stores what finished all the same, and says the pool lapsed', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueueMany([readyRecord(backend.alias), readyRecord(backend.alias)]);
    await backend.pools.beat('pool-1', 100);
    const options = { workerId: 'w', timeoutMs: 0, poolId: 'pool-1' };
    const [leased] = await backend.leases.acquire(['default'], options);
    const beatAt = Number(await fixture.admin.zscore(fixture.keys(backend).pools, 'pool-1'));
    await waitFor(
      async () => {
        const [seconds, micros] = await fixture.admin.time();
        return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) > beatAt;
      },
      { what: "the pool's heartbeat to lapse" },
    );
    const result = await backend.leases.acknowledgeAndAcquire(
      [succeeded(leased)],
      ['default'],
      options,
    );
    expect(result).toEqual({ acknowledged: ['acknowledged'], acquired: [], poolLapsed: true });
    await expect(backend.tasks.getResult(leased.id)).resolves.toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
    });
    expect((await backend.reads.telemetry(1000)).queues.default.counts.ready).toBe(1);
  });

  it('a waiting acquire leases as soon as its pool beats again, having logged the lapse once', async () => {
    const backend = fixture.backend();
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const warnings: string[] = [];
    let refused!: () => void;
    const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
      if (String(message).includes('leases nothing')) refused();
    });
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const started = Date.now();
      const waiting = backend.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 10_000,
        poolId: 'pool-1',
      });
      await firstRefusal;
      await backend.pools.beat('pool-1', 60_000);
      await expect(waiting).resolves.toEqual([expect.objectContaining({ id: record.id })]);
      // Rechecked every 250 ms: the beat is seen well within a second, not at the timeout.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(warnings.filter((line) => line.includes('leases nothing'))).toHaveLength(1);
      expect(log.mock.calls.map(([line]) => String(line))).toContainEqual(
        expect.stringContaining('worker pool "pool-1" beats again and leases tasks again'),
      );
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it('gives up at the timeout, and an aborted wait resolves with nothing', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const started = Date.now();
      await expect(
        backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 600, poolId: 'pool-1' }),
      ).rejects.toThrow(PoolHeartbeatLapsedError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
      const abort = new AbortController();
      const waiting = backend.leases.acquire(['default'], {
        workerId: 'w',
        timeoutMs: 10_000,
        poolId: 'pool-1',
        signal: abort.signal,
      });
      abort.abort();
      await expect(waiting).resolves.toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
