import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';

describe('RedisBackend peek and telemetry', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('peek skips ids whose data expired and still fills the page', async () => {
    const backend = fixture.backend();
    const records = Array.from({ length: 6 }, (_, i) => readyRecord(backend.alias, { args: [i] }));
    await backend.tasks.enqueueMany(records);
    await fixture.admin.unlink(fixture.keys(backend).task(records[0].id));
    await fixture.admin.unlink(fixture.keys(backend).task(records[2].id));
    const peeked = await backend.reads.peek('default', 'ready', 3);
    expect(peeked.map((r) => r.args[0])).toEqual([1, 3, 4]);
  });

  it('peek lists finished tasks newest first and skips expired results', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueueMany(
      [0, 1, 2].map((i) => readyRecord(backend.alias, { args: [i] })),
    );
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'w',
      max: 3,
      timeoutMs: 0,
    });
    for (const record of leased) {
      // History is scored in ms: tasks stored within one ms have no order among them.
      await backend.leases.acknowledge([succeeded(record)]);
      const storedBy = Date.now();
      await waitFor(() => Date.now() > storedBy, { what: 'the next millisecond' });
    }
    await fixture.admin.unlink(fixture.keys(backend).task(leased[1].id));
    const peeked = await backend.reads.peek('default', 'successful', 10);
    expect(peeked.map((r) => r.args[0])).toEqual([2, 0]);
  });

  it('counts only what happened inside the window', async () => {
    const backend = fixture.backend();
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const [first] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await backend.leases.acknowledge([succeeded(first)]);
    // Ingress is counted per second: the first task's second must be wholly outside the window.
    const doneSecond = Math.floor(Date.now() / 1000);
    await waitFor(() => Math.floor(Date.now() / 1000) >= doneSecond + 2, {
      what: 'the first task to age by a whole second',
    });
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const telemetry = await backend.reads.telemetry(1000);
    expect(telemetry.queues.default).toEqual({
      counts: { ready: 1, running: 0, deferred: 0, successful: 1, failed: 0, cancelled: 0 },
      rates: { intervalMs: 1000, ingress: 1, egress: 0, failed: 0 },
    });
  });

  it('counts the part of a second a short window covers in proportion', async () => {
    const backend = fixture.backend();
    let second = Math.floor(Date.now() / 1000) - 5;
    // Both seconds in one hour's hash.
    if ((second + 1) % 3600 === 0) second -= 1;
    const hour = Math.floor(second / 3600);
    // 2 enqueues 5 s ago and 30 in the second after: a 4.5 s window sees the second whole and
    // half the first, 31 (32 counted whole, 30 left out). The window ends on Redis's clock, a
    // little after ours: up to 250 ms later still rounds to half of 2.
    await fixture.admin.hset(fixture.keys(backend).ingress('default', hour), {
      [second]: 2,
      [second + 1]: 30,
    });
    const now = Date.now();
    const telemetry = await backend.reads.telemetry(now - (second * 1000 + 500));
    expect(telemetry.queues.default.rates.ingress).toBe(31);
  });
});
