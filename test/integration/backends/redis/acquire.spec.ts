import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { nextAttempt } from '../../../../lib/lifecycle/retry-policy';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';

describe('RedisBackend acquire', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('takes up to max from the first non-empty queue only, never mixing queues in a batch', async () => {
    const backend = fixture.backend();
    const alias = backend.alias;
    await backend.tasks.enqueueMany(
      [1, 2].map((n) => readyRecord(alias, { queue: 'emails', args: [n] })),
    );
    await backend.tasks.enqueueMany([3, 4].map((n) => readyRecord(alias, { args: [n] })));
    const first = await backend.leases.acquire(['emails', 'default'], {
      workerId: 'w',
      max: 10,
      timeoutMs: 0,
    });
    expect(first.map((r) => [r.task.queue, r.args[0]])).toEqual([
      ['emails', 1],
      ['emails', 2],
    ]);
    const second = await backend.leases.acquire(['emails', 'default'], {
      workerId: 'w',
      max: 10,
      timeoutMs: 0,
    });
    expect(second.map((r) => r.args[0])).toEqual([3, 4]);
  });

  it('creates the running set of a large lease as a skiplist, with only the leased tasks in it', async () => {
    const backend = fixture.backend();
    const records = await backend.tasks.enqueueMany(
      Array.from({ length: 21 }, () => readyRecord(backend.alias)),
    );
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 20,
      timeoutMs: 0,
    });
    const running = fixture.keys(backend).running('default');
    // A listpack (what Redis makes of a small ZSET) would scan every member on each lease and store.
    expect(await fixture.admin.object('ENCODING', running)).toBe('skiplist');
    expect(await fixture.admin.zrange(running, 0, -1)).toEqual(
      expect.arrayContaining(leased.map((r) => r.id)),
    );
    expect(await fixture.admin.zcard(running)).toBe(20);
    await backend.leases.acknowledge(leased.map((r) => succeeded(r)));
    expect(await fixture.admin.exists(running)).toBe(0);
    // Emptied and gone; a lease of one task (a one-slot worker) leaves it to Redis.
    const [last] = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 1,
      timeoutMs: 0,
    });
    expect(last.id).toBe(records[20].id);
    expect(await fixture.admin.object('ENCODING', running)).toBe('listpack');
    expect(await fixture.admin.zrange(running, 0, -1)).toEqual([records[20].id]);
  });

  it('release puts a task back in its old place in line, ahead of later ones', async () => {
    const backend = fixture.backend();
    const records = [0, 1, 2].map((n) => readyRecord(backend.alias, { args: [n], priority: 5 }));
    await backend.tasks.enqueueMany(records);
    await backend.tasks.enqueue(readyRecord(backend.alias, { args: ['low'] }));
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 2,
      timeoutMs: 0,
    });
    await expect(backend.leases.release(leased)).resolves.toBe(2);
    const ready = await backend.reads.peek('default', 'ready', 10);
    expect(ready.map((r) => r.args[0])).toEqual([0, 1, 2, 'low']);
  });

  it('keeps startedAt from the first attempt and appends each worker', async () => {
    const backend = fixture.backend();
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const [first] = await backend.leases.acquire(['default'], { workerId: 'a:1-0', timeoutMs: 0 });
    await backend.leases.release([first]);
    const [second] = await backend.leases.acquire(['default'], {
      workerId: 'b"odd\\id',
      timeoutMs: 0,
    });
    expect(second.id).toBe(record.id);
    expect(second.startedAt).toEqual(first.startedAt);
    expect(second.lastAttemptedAt!.getTime()).toBeGreaterThanOrEqual(first.startedAt!.getTime());
    expect(second.workerIds).toEqual(['a:1-0', 'b"odd\\id']);
  });

  it('keeps startedAt from the first attempt across a retry, as the other backends do', async () => {
    const backend = fixture.backend();
    const base = readyRecord(backend.alias);
    const backoff = { type: 'fixed' as const, delayMs: 0, jitter: false };
    await backend.tasks.enqueue({ ...base, task: { ...base.task, retries: 1, backoff } });
    const [first] = await backend.leases.acquire(['default'], { workerId: 'a:1-0', timeoutMs: 0 });
    const next = nextAttempt(first, { className: 'Error', traceback: 'Error: once' }, new Date());
    await expect(backend.leases.retry([next])).resolves.toEqual(['retried']);
    const [second] = await backend.leases.acquire(['default'], { workerId: 'b:1-0', timeoutMs: 0 });
    expect(second.id).toBe(base.id);
    expect(second.startedAt).toEqual(first.startedAt);
    expect(second.lastAttemptedAt!.getTime()).toBeGreaterThanOrEqual(first.startedAt!.getTime());
    expect(second.workerIds).toEqual(['a:1-0', 'b:1-0']);
  });

  describe('stored data that is not ours', () => {
    async function expectFailedAsCorrupt(
      backend: ReturnType<RedisFixture['backend']>,
      id: string,
      reason: RegExp,
    ) {
      const stored = await backend.tasks.getResult(id);
      expect(stored.status).toBe(TaskResultStatus.FAILED);
      expect(stored.errors.map((e) => e.className)).toEqual(['CorruptTaskDataError']);
      expect(stored.errors[0].traceback).toMatch(reason);
      expect((await backend.reads.peek('default', 'failed', 10)).map((r) => r.id)).toContain(id);
      expect((await backend.reads.peek('default', 'running', 10)).map((r) => r.id)).not.toContain(
        id,
      );
    }

    it('fails a task whose data is not JSON and hands out the next one in the same call', async () => {
      const backend = fixture.backend();
      const [bad, good] = await backend.tasks.enqueueMany([
        readyRecord(backend.alias),
        readyRecord(backend.alias),
      ]);
      await fixture.admin.hset(fixture.keys(backend).task(bad.id), 'data', '{not json');
      const acquired = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      expect(acquired.map((r) => r.id)).toEqual([good.id]);
      await expectFailedAsCorrupt(backend, bad.id, /not JSON/);
    });

    it('fails an id in a queue whose task hash is missing, and the consumer goes on', async () => {
      const backend = fixture.backend();
      const keys = fixture.keys(backend);
      await fixture.admin.zadd(keys.queue('default'), -1e15, 'ghost');
      const good = await backend.tasks.enqueue(readyRecord(backend.alias));
      const acquired = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      expect(acquired.map((r) => r.id)).toEqual([good.id]);
      await expectFailedAsCorrupt(backend, 'ghost', /missing/);
    });

    it('fails an id whose task key holds another type without stopping the batch', async () => {
      const backend = fixture.backend();
      const keys = fixture.keys(backend);
      await fixture.admin.zadd(keys.queue('default'), -1e15, 'squatter');
      await fixture.admin.set(keys.task('squatter'), 'a string, not a hash');
      const good = await backend.tasks.enqueue(readyRecord(backend.alias));
      const acquired = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 5,
        timeoutMs: 0,
      });
      expect(acquired.map((r) => r.id)).toEqual([good.id]);
      const stored = await backend.tasks.getResult('squatter');
      expect(stored.status).toBe(TaskResultStatus.FAILED);
    });

    it('fails a task whose JSON lacks required fields', async () => {
      const backend = fixture.backend();
      const bad = await backend.tasks.enqueue(readyRecord(backend.alias));
      await fixture.admin.hset(fixture.keys(backend).task(bad.id), 'data', '{"task":{}}');
      await expect(
        backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
      ).resolves.toEqual([]);
      await expectFailedAsCorrupt(backend, bad.id, /malformed/);
    });
  });

  describe('waiting', () => {
    it('wakes every one of many waiting consumers when a bulk arrives', async () => {
      const backend = fixture.backend();
      const waiting = Array.from({ length: 6 }, (_, w) =>
        backend.leases.acquire(['default'], { workerId: `w${w}`, timeoutMs: 10_000 }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      const started = Date.now();
      await backend.tasks.enqueueMany(Array.from({ length: 6 }, () => readyRecord(backend.alias)));
      const batches = await Promise.all(waiting);
      expect(Date.now() - started).toBeLessThan(2000);
      const ids = batches.flat().map((r) => r.id);
      expect(new Set(ids).size).toBe(6);
    });

    it('returns at once, with nothing, when asked to consume no queue', async () => {
      const backend = fixture.backend();
      await backend.tasks.enqueue(readyRecord(backend.alias));
      await expect(backend.leases.acquire([], { workerId: 'w', timeoutMs: 5000 })).resolves.toEqual(
        [],
      );
    });

    it('returns at once, with nothing, when the signal is already aborted', async () => {
      const backend = fixture.backend();
      await backend.tasks.enqueue(readyRecord(backend.alias));
      const controller = new AbortController();
      controller.abort();
      await expect(
        backend.leases.acquire(['default'], {
          workerId: 'w',
          timeoutMs: 10_000,
          signal: controller.signal,
        }),
      ).resolves.toEqual([]);
    });

    it('ends a wait when the backend closes', async () => {
      const backend = fixture.backend();
      const started = Date.now();
      const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
      await new Promise((resolve) => setImmediate(resolve));
      await backend.close();
      await expect(waiting).resolves.toEqual([]);
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });

  describe('a finished task', () => {
    it('stays in its hash: the outcome beside the enqueued data, expiring after resultTtl', async () => {
      const backend = fixture.backend({ resultTtl: 60_000 });
      await backend.tasks.enqueue(
        readyRecord(backend.alias, { args: ['arg-marker', { b: [1, 2] }] }),
      );
      const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      const done = { ...succeeded(leased, { echoed: ['a'] }), workerIds: ['w-7'] };
      expect(await backend.leases.acknowledge([done])).toEqual(['acknowledged']);

      const taskKey = fixture.keys(backend).task(leased.id);
      const keys = await fixture.admin.keys(`*${leased.id}*`);
      expect(keys).toEqual([taskKey]);
      const hash = await fixture.admin.hgetall(taskKey);
      expect(hash).toHaveProperty('data');
      // The outcome holds what the worker changed, not the task's arguments again.
      expect(hash.outcome).not.toContain('arg-marker');
      const ttl = await fixture.admin.pttl(taskKey);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await backend.tasks.getResult(leased.id)).toEqual(done);
      expect(await backend.reads.peek('default', 'successful', 5)).toEqual([done]);
    });

    it('reads back failed with every error, and without a return value', async () => {
      const backend = fixture.backend();
      await backend.tasks.enqueue(readyRecord(backend.alias));
      const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      const errors = [
        { className: 'Error', traceback: 'Error: first attempt' },
        { className: 'TypeError', traceback: 'TypeError: second attempt' },
      ];
      const done = { ...leased, status: TaskResultStatus.FAILED, finishedAt: new Date(), errors };
      await backend.leases.acknowledge([done]);
      const stored = await backend.tasks.getResult(leased.id);
      expect(stored).toEqual(done);
      expect(stored).not.toHaveProperty('returnValue');
    });

    it('keeps its id taken: enqueuing it again is refused while the result is stored', async () => {
      const backend = fixture.backend();
      const record = await backend.tasks.enqueue(readyRecord(backend.alias));
      const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await backend.leases.acknowledge([succeeded(leased)]);
      await expect(backend.tasks.enqueue(record)).rejects.toThrow(/already stored/);
      expect((await backend.tasks.getResult(record.id)).status).toBe(TaskResultStatus.SUCCESSFUL);
    });

    it('with an outcome that is not ours reads as corrupt, and peek skips it', async () => {
      const backend = fixture.backend();
      await backend.tasks.enqueueMany([readyRecord(backend.alias), readyRecord(backend.alias)]);
      const leased = await backend.leases.acquire(['default'], {
        workerId: 'w',
        max: 2,
        timeoutMs: 0,
      });
      await backend.leases.acknowledge(leased.map((record) => succeeded(record)));
      const [bad, good] = leased;
      const badKey = fixture.keys(backend).task(bad.id);
      await fixture.admin.hset(badKey, 'outcome', '{not json');
      await expect(backend.tasks.getResult(bad.id)).rejects.toThrow(/outcome is not JSON/);
      await fixture.admin.hset(badKey, 'outcome', '{"s":"RUNNING","w":[]}');
      await expect(backend.tasks.getResult(bad.id)).rejects.toThrow(/outcome has malformed fields/);
      expect((await backend.reads.peek('default', 'successful', 5)).map((r) => r.id)).toEqual([
        good.id,
      ]);
    });
  });

  it('acknowledges a whole batch in one call, reporting each outcome', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueueMany(Array.from({ length: 50 }, () => readyRecord(backend.alias)));
    const batch = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 50,
      timeoutMs: 0,
    });
    expect(batch).toHaveLength(50);
    const outcomes = await backend.leases.acknowledge(batch.map((r) => succeeded(r, r.id)));
    expect(outcomes).toEqual(Array(50).fill('acknowledged'));
    const telemetry = await backend.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts).toMatchObject({ running: 0, successful: 50 });
  });
});
