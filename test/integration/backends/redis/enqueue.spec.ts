import { TaskAlreadyExistsError } from '../../../../lib/core/errors/task-already-exists.error';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { aliasKeys } from '../../../helpers/redis-cleanup';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';

describe('RedisBackend enqueue', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('keeps a waiting task small: only its data, no id, status or defaults stored twice', async () => {
    const backend = fixture.backend({ leaseTtl: 1000, resultTtl: 5000 });
    const record = readyRecord(backend.alias, { args: ['x'] });
    await backend.tasks.enqueue(record);
    const key = fixture.keys(backend).task(record.id);
    const hash = await fixture.admin.hgetall(key);
    expect(Object.keys(hash)).toEqual(['data']);
    expect(JSON.parse(hash.data)).toEqual({
      task: { name: 'redis.spec', queue: 'default' },
      enqueuedAt: record.enqueuedAt.getTime(),
      args: ['x'],
    });
    // No expiry: a task waits as long as it takes.
    expect(await fixture.admin.pttl(key)).toBe(-1);
  });

  it('gives no expiry to a waiting, deferred or running task, and resultTtl to a finished one', async () => {
    const backend = fixture.backend({ leaseTtl: 1000, resultTtl: 5000 });
    const deferred = readyRecord(backend.alias, { runAfter: new Date(Date.now() + 60_000) });
    const ready = readyRecord(backend.alias);
    await backend.tasks.enqueueMany([deferred, ready]);
    const keys = fixture.keys(backend);
    expect(await fixture.admin.pttl(keys.task(deferred.id))).toBe(-1);
    const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    expect(await fixture.admin.pttl(keys.task(ready.id))).toBe(-1);
    await backend.leases.acknowledge([succeeded(leased)]);
    const ttl = await fixture.admin.pttl(keys.task(ready.id));
    expect(ttl).toBeGreaterThan(4000);
    expect(ttl).toBeLessThanOrEqual(5000);
  });

  it('refuses an id that is already stored, and a bulk with such an id stores nothing', async () => {
    const backend = fixture.backend();
    const first = await backend.tasks.enqueue(readyRecord(backend.alias));
    await expect(backend.tasks.enqueue(first)).rejects.toThrow(TaskAlreadyExistsError);
    const fresh = readyRecord(backend.alias);
    await expect(backend.tasks.enqueueMany([fresh, first])).rejects.toThrow(first.id);
    await expect(backend.tasks.getResult(fresh.id)).rejects.toThrow(/No task result/);
    const telemetry = await backend.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts.ready).toBe(1);
    expect(telemetry.queues.default.rates.ingress).toBe(1);
  });

  it('undoes every earlier group of a bulk when its last group clashes', async () => {
    const backend = fixture.backend();
    const alias = backend.alias;
    const first = await backend.tasks.enqueue(readyRecord(alias));
    const bulk = [
      readyRecord(alias),
      readyRecord(alias, { queue: 'emails' }),
      readyRecord(alias, { priority: 3, runAfter: new Date(Date.now() + 60_000) }),
      // The clash comes second in the last group: the group's first task is undone too.
      readyRecord(alias),
      first,
    ];
    await expect(backend.tasks.enqueueMany(bulk)).rejects.toThrow(first.id);
    const keys = fixture.keys(backend);
    for (const record of bulk.slice(0, -1)) {
      expect(await fixture.admin.exists(keys.task(record.id))).toBe(0);
    }
    expect(await fixture.admin.exists(keys.task(first.id))).toBe(1);
    const telemetry = await backend.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts).toMatchObject({ ready: 1, deferred: 0 });
    expect(telemetry.queues.emails.counts.ready).toBe(0);
  });

  it('counts ingress and wakes each queue of a bulk that goes back and forth between queues', async () => {
    const backend = fixture.backend();
    const alias = backend.alias;
    const queues = ['default', 'emails', 'emails', 'default', 'default', 'emails', 'default'];
    await backend.tasks.enqueueMany(queues.map((queue) => readyRecord(alias, { queue })));
    await backend.tasks.enqueue(
      readyRecord(alias, { queue: 'emails', runAfter: new Date(Date.now() + 60_000) }),
    );
    const telemetry = await backend.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts.ready).toBe(4);
    expect(telemetry.queues.default.rates.ingress).toBe(4);
    expect(telemetry.queues.emails.counts).toMatchObject({ ready: 3, deferred: 1 });
    expect(telemetry.queues.emails.rates.ingress).toBe(4);
    // One token per ready task: a deferred one wakes nobody until it is due.
    const keys = fixture.keys(backend);
    expect(await fixture.admin.llen(keys.wake('default'))).toBe(4);
    expect(await fixture.admin.llen(keys.wake('emails'))).toBe(3);
  });

  it('refuses a record for a queue the alias does not serve, naming task and queue', async () => {
    const backend = fixture.backend();
    await expect(
      backend.tasks.enqueue(readyRecord(backend.alias, { queue: 'nope' })),
    ).rejects.toThrow(/Task "redis.spec": queue "nope" is not configured/);
  });

  it('stores a bulk of 1000 in one script call, best priority first then in order', async () => {
    const backend = fixture.backend();
    const records = Array.from({ length: 1000 }, (_, i) =>
      readyRecord(backend.alias, { args: [i], priority: i % 2 }),
    );
    await backend.tasks.enqueueMany(records);
    const ready = await backend.reads.peek('default', 'ready', 1000);
    const expected = [
      ...records.filter((_, i) => i % 2 === 1),
      ...records.filter((_, i) => i % 2 === 0),
    ].map((r) => r.args[0]);
    expect(ready.map((r) => r.args[0])).toEqual(expected);
  });

  it('puts every key of an alias under its hash tag threadmill:{alias}:', async () => {
    const backend = fixture.backend({ leaseTtl: 50 });
    const alias = backend.alias;
    await backend.tasks.enqueueMany([1, 2, 3, 4].map(() => readyRecord(alias)));
    await backend.tasks.enqueue(readyRecord(alias, { queue: 'emails' }));
    await backend.tasks.enqueue(readyRecord(alias, { runAfter: new Date(Date.now() + 60_000) }));
    const [a, b] = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 2,
      timeoutMs: 0,
    });
    await backend.leases.acknowledge([succeeded(a)]);
    await backend.leases.acknowledge([
      { ...b, status: TaskResultStatus.FAILED, finishedAt: new Date() },
    ]);
    const [leased] = await backend.leases.acquire(['emails'], { workerId: 'w', timeoutMs: 0 });
    await waitFor(() => Date.now() > leased.startedAt!.getTime() + 60, {
      what: 'the lease to end',
    });
    await runMaintenancePass(backend);
    await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 100 });

    const keys = await aliasKeys(fixture.admin, alias);
    const tag = `threadmill:{${alias}}:`;
    expect(keys.every((key) => key.startsWith(tag))).toBe(true);
    const kinds = new Set(keys.map((key) => key.slice(tag.length).split(':')[0]));
    expect([...kinds].sort()).toEqual(
      [
        'broker',
        'deferred',
        'ingress',
        'queue',
        'results',
        'running',
        'sequence',
        'store-mark',
        'task',
        'wake',
      ].sort(),
    );
    // No key of this alias escaped the prefix: nothing else mentions the alias.
    let cursor = '0';
    const stray: string[] = [];
    do {
      const [next, batch] = await fixture.admin.scan(cursor, 'MATCH', `*${alias}*`, 'COUNT', 1000);
      cursor = next;
      stray.push(...batch.filter((key) => !key.startsWith(tag)));
    } while (cursor !== '0');
    expect(stray).toEqual([]);
  });
});
