import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, commandStats, readyRecord, statsDelta } from './redis-fixture';

// A private redis-server: INFO commandstats and blocked_clients must see this file's commands only.
describe('RedisBackend paused queues and idle consumers', () => {
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

  const blockedClients = async (): Promise<number> => {
    const info = await fixture.admin.info('clients');
    return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
  };

  const total = (delta: Record<string, number>): number =>
    Object.values(delta).reduce((sum, calls) => sum + calls, 0);

  it('an idle pool with a paused non-empty queue makes a bounded number of commands over 2 s', async () => {
    const backend = fixture.backend();
    await backend.control.pauseQueue('default');
    const before = await commandStats(fixture.admin);
    // Each task of a paused queue pushes a wake-up token as it is enqueued: every idle
    // consumer may be woken once, finds nothing it may lease, drops the tokens and
    // waits again. A chain of consumers waking each other would cost thousands.
    const waiting = Array.from({ length: 4 }, (_, w) =>
      backend.leases.acquire(['default'], { workerId: `w${w}`, timeoutMs: 2000 }),
    );
    await waitFor(async () => (await blockedClients()) === 4, { what: 'four blocked consumers' });
    await backend.tasks.enqueueMany(Array.from({ length: 10 }, () => readyRecord(backend.alias)));
    await expect(Promise.all(waiting)).resolves.toEqual([[], [], [], []]);
    const { info: _ourInfo, ...delta } = statsDelta(before, await commandStats(fixture.admin));
    // Per consumer at most: a look, a BLPOP and the look sent behind it when a token wakes
    // it, then a BLPOP and the look behind it when that wait times out; plus the enqueue.
    expect(delta.blpop).toBeLessThanOrEqual(8);
    expect((delta.eval ?? 0) + (delta.evalsha ?? 0)).toBeLessThanOrEqual(4 * 3 + 1);
    // Everything, the blocking connections' setup and the enqueue's own writes included.
    expect(total(delta)).toBeLessThan(100);
    expect(delta.zpopmin ?? 0).toBe(0);
    expect(await backend.reads.telemetry(60_000)).toMatchObject({
      queues: { default: { counts: { ready: 10, running: 0 } } },
    });
  }, 10_000);

  it('resume wakes the consumers blocked on the queue, which take its tasks at once', async () => {
    const backend = fixture.backend();
    const producer = fixture.backend({}, undefined, backend.alias);
    await producer.control.pauseQueue('default');
    const records = await producer.tasks.enqueueMany(
      Array.from({ length: 3 }, () => readyRecord(backend.alias)),
    );
    const waiting = Array.from({ length: 3 }, (_, w) =>
      backend.leases.acquire(['default'], { workerId: `w${w}`, timeoutMs: 20_000 }),
    );
    // Blocked, the tokens of the enqueue dropped by looks that found the queue paused.
    await waitFor(async () => (await blockedClients()) === 3, { what: 'three blocked consumers' });
    const started = Date.now();
    await producer.control.resumeQueue('default');
    const taken: TaskRecord[] = (await Promise.all(waiting)).flat();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(taken.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
  }, 10_000);

  it('a consumer of several queues keeps taking the others while one is paused', async () => {
    const backend = fixture.backend();
    await backend.control.pauseQueue('default');
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const waiting = backend.leases.acquire(['default', 'emails'], {
      workerId: 'w',
      timeoutMs: 5000,
    });
    await waitFor(async () => (await blockedClients()) === 1, { what: 'the consumer to block' });
    const email = await backend.tasks.enqueue(readyRecord(backend.alias, { queue: 'emails' }));
    await expect(waiting).resolves.toEqual([expect.objectContaining({ id: email.id })]);
  }, 10_000);
});
