import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';

describe('RedisBackend peek and telemetry', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('peek skips ids whose data expired and still fills the page', async () => {
    const backend = fixture.backend();
    const records = Array.from({ length: 6 }, (_, i) => readyRecord(backend.alias, { args: [i] }));
    await backend.enqueueMany(records);
    await fixture.admin.unlink(fixture.keys(backend).task(records[0].id));
    await fixture.admin.unlink(fixture.keys(backend).task(records[2].id));
    const peeked = await backend.peek('default', 'ready', 3);
    expect(peeked.map((r) => r.args[0])).toEqual([1, 3, 4]);
  });

  it('peek lists finished tasks newest first and skips expired results', async () => {
    const backend = fixture.backend();
    await backend.enqueueMany([0, 1, 2].map((i) => readyRecord(backend.alias, { args: [i] })));
    const leased = await backend.acquire(['default'], { workerId: 'w', max: 3, timeoutMs: 0 });
    for (const record of leased) await backend.acknowledge([succeeded(record)]);
    await fixture.admin.unlink(fixture.keys(backend).result(leased[1].id));
    const peeked = await backend.peek('default', 'successful', 10);
    expect(peeked.map((r) => r.args[0])).toEqual([2, 0]);
  });

  it('counts only what happened inside the window', async () => {
    const backend = fixture.backend();
    await backend.enqueue(readyRecord(backend.alias));
    const [first] = await backend.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await backend.acknowledge([succeeded(first)]);
    const doneAt = Date.now();
    await waitFor(() => Date.now() > doneAt + 150, { what: 'the first task to age' });
    await backend.enqueue(readyRecord(backend.alias));
    const telemetry = await backend.telemetry(100);
    expect(telemetry.queues.default).toEqual({
      counts: { ready: 1, running: 0, deferred: 0, successful: 1, failed: 0 },
      rates: { intervalMs: 100, ingress: 1, egress: 0, failed: 0 },
    });
  });
});
