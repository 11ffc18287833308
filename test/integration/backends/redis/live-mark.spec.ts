import type { LiveTaskEvent } from '../../../../lib/core/live-task-feed';
import { storedProgress } from '../../../../lib/core/task-progress';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';

// The scripts that enqueue, lease and store progress publish live events
// only while the live channel's listener mark exists. An outside subscriber
// (which sets no mark) sees what they publish: nothing while nobody marked
// it, not even while the finished channel is listened to, and every event
// once a listener of the backend's own live feed did.
describe('RedisBackend live channel and its listener mark', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  /** Enqueues, leases, reports progress and finishes one task: every kind of live event. */
  async function runOne(backend: ReturnType<RedisFixture['backend']>, args: unknown[]) {
    await backend.tasks.enqueue(readyRecord(backend.alias, { args }));
    const [leased] = await backend.leases.acquire(['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    await expect(
      backend.leases.storeProgress([{ record: leased, stored: storedProgress(1, '0.5') }]),
    ).resolves.toEqual([true]);
    await backend.leases.acknowledge([succeeded(leased)]);
    return leased;
  }

  it('publishes nothing while nobody listens, nor while only finished tasks are listened to', async () => {
    const backend = fixture.backend();
    const { liveChannel, liveListenerMark } = fixture.keys(backend);
    const messages = await fixture.watchChannel(liveChannel);

    await runOne(backend, ['unheard']);
    const offFinished = await backend.feeds.subscribeFinished(() => undefined);
    const finishedOnly = await runOne(backend, ['finished only']);
    expect(await fixture.admin.exists(liveListenerMark)).toBe(0);

    const heard: LiveTaskEvent[] = [];
    const off = await backend.feeds.subscribeLive((events) => heard.push(...events));
    const ttl = await fixture.admin.pttl(liveListenerMark);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);

    const announced = await runOne(backend, ['heard']);
    await waitFor(() => heard.length === 3, { what: 'the listener hearing three events' });
    // One message per scripted call: the enqueue, the lease, the progress; none from before the mark.
    await waitFor(() => messages.length === 3, { what: 'three messages on the channel' });
    expect(messages.every((message) => message.includes(announced.id))).toBe(true);
    expect(messages.some((message) => message.includes(finishedOnly.id))).toBe(false);
    expect(heard.map((event) => [event.event, event.id])).toEqual([
      ['enqueued', announced.id],
      ['started', announced.id],
      ['progressed', announced.id],
    ]);
    await off();
    await offFinished();
  });

  it('publishes one message per lease however many tasks it takes', async () => {
    const backend = fixture.backend();
    const messages = await fixture.watchChannel(fixture.keys(backend).liveChannel);
    const off = await backend.feeds.subscribeLive(() => undefined);
    await backend.tasks.enqueueMany(
      [1, 2, 3].map((n) => readyRecord(backend.alias, { args: [n] })),
    );
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'host:1-0',
      max: 3,
      timeoutMs: 0,
    });
    await waitFor(() => messages.length === 2, { what: 'the enqueue and the lease' });
    const [event, entries] = JSON.parse(messages[1]) as [string, [string, string, string][]];
    expect(event).toBe('started');
    expect(entries).toEqual(leased.map((task) => [task.id, 'default', task.task.name]));
    await off();
  });
});
