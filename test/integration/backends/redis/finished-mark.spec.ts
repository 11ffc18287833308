import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';
import { decideCancel } from '../../../../lib/lifecycle/cancel-decision';

// The storing scripts publish finished tasks only while the channel's
// listener mark exists. An outside subscriber (which sets no mark) sees what
// the scripts publish: nothing while nobody marked, everything once a
// listener of the backend's own feed did.
describe('RedisBackend finished channel and its listener mark', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  async function runOne(backend: ReturnType<RedisFixture['backend']>, args: unknown[]) {
    await backend.tasks.enqueue(readyRecord(backend.alias, { args }));
    const [leased] = await backend.leases.acquire(['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    await backend.leases.acknowledge([succeeded(leased)]);
    return leased;
  }

  it('publishes nothing while nobody listens, and every finish once a listener marked the channel', async () => {
    const backend = fixture.backend();
    const { finishedChannel, finishedListenerMark } = fixture.keys(backend);
    const messages = await fixture.watchChannel(finishedChannel);

    const unheard = await runOne(backend, ['unheard']);
    expect(await fixture.admin.exists(finishedListenerMark)).toBe(0);

    const heard: TaskRecord[] = [];
    const off = await backend.feeds.subscribeFinished((tasks) =>
      heard.push(...tasks.map((task) => ({ id: task.id }) as TaskRecord)),
    );
    const ttl = await fixture.admin.pttl(finishedListenerMark);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);

    const announced = await runOne(backend, ['heard']);
    await waitFor(() => heard.length === 1, { what: 'the listener hearing the finish' });
    await waitFor(() => messages.length === 1, { what: 'one message on the channel' });
    // The only message is the second task's: the first was stored before the mark.
    expect(messages[0]).toContain(announced.id);
    expect(messages[0]).not.toContain(unheard.id);
    expect(heard.map((task) => task.id)).toEqual([announced.id]);
    await off();
  });

  it('announces a waiting task cancelled only once the channel is marked', async () => {
    const backend = fixture.backend();
    const { finishedChannel } = fixture.keys(backend);
    const messages = await fixture.watchChannel(finishedChannel);
    const first = await backend.tasks.enqueue(readyRecord(backend.alias, { args: [1] }));
    await backend.control.cancel(first.id, decideCancel);

    const off = await backend.feeds.subscribeFinished(() => undefined);
    const second = await backend.tasks.enqueue(readyRecord(backend.alias, { args: [2] }));
    await backend.control.cancel(second.id, decideCancel);
    await waitFor(() => messages.length === 1, { what: 'one message on the channel' });
    expect(messages[0]).toContain(second.id);
    expect(messages[0]).toContain(TaskResultStatus.CANCELLED);
    await off();
  });
});
