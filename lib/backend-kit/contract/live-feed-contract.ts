import type { LiveTaskEvent } from '../../core/live-task-feed';
import { recordWith } from '../../core/record-with';
import type { TaskBackend } from '../../core/task-backend.interface';
import { storedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { TaskUniqueness } from '../../core/unique-key';
import { readyRecord } from './ready-record';
import { waitFor } from './wait-for';
import type { ContractRunner } from './contract-runner';

interface LiveFeedSubject {
  backend: TaskBackend;
  alias: string;
  /** Another instance on the same store (its own connection), where the store is shared. */
  reopen?: () => Promise<TaskBackend>;
}

/** A listener that keeps every event it is given, and its unsubscribe. */
async function listen(
  backend: TaskBackend,
): Promise<{ seen: LiveTaskEvent[]; off: () => Promise<void> }> {
  const seen: LiveTaskEvent[] = [];
  const off = await backend.feeds.subscribeLive((events) => seen.push(...events));
  return { seen, off };
}

const brief = (events: readonly LiveTaskEvent[]): [string, string][] =>
  events.map((event) => [event.event, event.id]);

/**
 * The contract of the feed of live task events: a task made is announced
 * enqueued, a lease started, a stored progress progressed (with the value
 * stored), each with the task's id, queue and name, to every listener
 * subscribed at the time, from every instance on the store; what changes
 * nothing (a late progress, a unique key's holder returned) is not
 * announced. Part of describeBackendContract, run on every backend.
 */
export function describeLiveFeed(t: ContractRunner, subject: () => LiveFeedSubject): void {
  const { describe, it, expect } = t;
  describe('feed of live task events', () => {
    const record = (name = 'contract.echo'): TaskRecord => readyRecord(subject().alias, { name });
    const lease = (backend: TaskBackend, max = 10): Promise<TaskRecord[]> =>
      backend.leases.acquire(['default'], { workerId: 'host:1-0', max, timeoutMs: 0 });
    const report = (backend: TaskBackend, running: TaskRecord, value: unknown) =>
      backend.leases.storeProgress([
        {
          record: running,
          stored: storedProgress(running.workerIds.length, JSON.stringify(value)),
        },
      ]);

    it('announces enqueued, started and progressed with id, queue, name and the progress stored', async () => {
      const { backend } = subject();
      const feed = await listen(backend);
      const [a, b] = await backend.tasks.enqueueMany([record('contract.a'), record('contract.b')]);
      const [running] = await lease(backend);
      expect(running.id).toBe(a.id);
      await expect(report(backend, running, { done: 3 })).resolves.toEqual([true]);
      await waitFor(() => feed.seen.length >= 5, { what: 'five live events' });
      expect(brief(feed.seen)).toEqual([
        ['enqueued', a.id],
        ['enqueued', b.id],
        ['started', a.id],
        ['started', b.id],
        ['progressed', a.id],
      ]);
      expect(feed.seen[0]).toEqual({
        event: 'enqueued',
        id: a.id,
        queue: 'default',
        name: 'contract.a',
      });
      expect(feed.seen[3]).toEqual({
        event: 'started',
        id: b.id,
        queue: 'default',
        name: 'contract.b',
      });
      expect(feed.seen[4]).toEqual({
        event: 'progressed',
        id: a.id,
        queue: 'default',
        name: 'contract.a',
        progress: storedProgress(1, JSON.stringify({ done: 3 })),
      });
      await feed.off();
    });

    it('announces the lease acknowledgeAndAcquire takes beside the finish it stores', async () => {
      const { backend } = subject();
      const [first, second] = await backend.tasks.enqueueMany([record(), record()]);
      const [leased] = await lease(backend, 1);
      const feed = await listen(backend);
      await backend.leases.acknowledgeAndAcquire(
        [recordWith(leased, { status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() })],
        ['default'],
        { workerId: 'host:1-0', timeoutMs: 0 },
      );
      await waitFor(() => feed.seen.length >= 1, { what: 'the second lease announced' });
      expect(leased.id).toBe(first.id);
      expect(brief(feed.seen)).toEqual([['started', second.id]]);
      await feed.off();
    });

    it('announces no progress that was not stored, and no holder a unique key returned', async () => {
      const { backend, alias } = subject();
      const unique: TaskUniqueness = { key: 'live-1', mode: 'unfinished' };
      const keyed = (): TaskRecord => {
        const made = readyRecord(alias, { name: 'contract.echo' });
        return { ...made, task: { ...made.task, unique } };
      };
      const holder = await backend.tasks.enqueue(keyed());
      const [running] = await lease(backend);
      await backend.leases.acknowledge([
        recordWith(running, { status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() }),
      ]);
      const waiting = await backend.tasks.enqueue(keyed());
      const feed = await listen(backend);
      await expect(report(backend, running, 1)).resolves.toEqual([false]);
      const returned = await backend.tasks.enqueue(keyed());
      expect(returned.id).toBe(waiting.id);
      // An event after them, so their absence is seen once it arrives.
      const marker = await backend.tasks.enqueue(record());
      await waitFor(() => feed.seen.some((event) => event.id === marker.id), {
        what: 'the marker enqueued',
      });
      expect(brief(feed.seen)).toEqual([['enqueued', marker.id]]);
      expect(holder.id).not.toBe(waiting.id);
      await feed.off();
    });

    it('delivers nothing after unsubscribing, while another listener still hears', async () => {
      const { backend } = subject();
      const gone = await listen(backend);
      const staying = await listen(backend);
      await gone.off();
      await gone.off();
      const task = await backend.tasks.enqueue(record());
      await waitFor(() => staying.seen.length === 1, { what: 'the staying listener' });
      expect(staying.seen[0]).toMatchObject({ event: 'enqueued', id: task.id });
      expect(gone.seen).toEqual([]);
      await staying.off();
    });

    it('announces a start to another instance on the same store', async () => {
      const { backend, reopen } = subject();
      if (!reopen) return;
      const other = await reopen();
      try {
        const feed = await listen(other);
        const task = await backend.tasks.enqueue(record());
        await lease(backend);
        await waitFor(() => feed.seen.some((event) => event.event === 'started'), {
          what: 'the other instance hearing the start',
        });
        expect(brief(feed.seen)).toEqual([
          ['enqueued', task.id],
          ['started', task.id],
        ]);
        await feed.off();
      } finally {
        await other.close();
      }
    });
  });
}
