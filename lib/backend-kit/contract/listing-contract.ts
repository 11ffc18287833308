import { InvalidQueryError } from '../../core/errors/invalid-query.error';
import { UnknownQueueError } from '../../core/errors/unknown-queue.error';
import { LIST_SCAN_PER_RECORD } from '../../backends/list-cursor';
import { QUEUE_SEGMENTS, type QueueSegment } from '../../core/queue-segment';
import { recordWith } from '../../core/record-with';
import type { TaskBackend } from '../../core/task-backend.interface';
import { failedAttempt } from '../../lifecycle/retry-policy';
import type { PoolInfo, TaskListQuery } from '../../core/task-listing';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord, type ReadyRecordFields } from './ready-record';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';

/**
 * The contract of the operators' reads: pages of a segment from a cursor
 * (peek's order, none skipped or repeated while tasks come and go, a name
 * filter that examines a bounded number of entries per page), the worker
 * pools with what each said in its beat, and activity per bucket. Part of
 * describeBackendContract, run on every backend.
 */
export function describeListing(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('listing', () => {
    const record = (fields: ReadyRecordFields = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const acquire = (max: number, poolId?: string): Promise<TaskRecord[]> =>
      subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        max,
        timeoutMs: 0,
        poolId,
      });
    const succeeded = (running: TaskRecord): TaskRecord =>
      recordWith(running, { status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() });

    /** Every page of a listing (one call per page), and how many calls it took. */
    const allPages = async (
      query: Omit<TaskListQuery, 'cursor'>,
      between: () => Promise<void> = async () => undefined,
    ): Promise<{ ids: string[]; calls: number }> => {
      const ids: string[] = [];
      let cursor: string | undefined;
      let calls = 0;
      do {
        const page = await subject().backend.reads.listTasks({ ...query, cursor });
        calls++;
        expect(page.records.length).toBeLessThanOrEqual(query.limit);
        ids.push(...page.records.map((r) => r.id));
        cursor = page.next ?? undefined;
        await between();
      } while (cursor !== undefined);
      return { ids, calls };
    };

    it('pages through a segment in peek order, none skipped or repeated among the tasks present throughout', async () => {
      const { backend } = subject();
      const base = Date.now() - 60_000;
      const first = await backend.tasks.enqueueMany(
        Array.from({ length: 30 }, (_, i) => record({ enqueuedAt: new Date(base + i) })),
      );
      const firstPage = await backend.reads.listTasks({
        queue: 'default',
        segment: 'ready',
        limit: 7,
      });
      expect(firstPage.records).toEqual(await backend.reads.peek('default', 'ready', 7));
      const taken = new Set<string>();
      let n = 0;
      const { ids } = await allPages({ queue: 'default', segment: 'ready', limit: 7 }, async () => {
        // Meanwhile: a task before the cursor, one after it, and the best one leased.
        n++;
        await Promise.all([
          backend.tasks.enqueue(record({ priority: 5, args: [n] })),
          backend.tasks.enqueue(record({ args: [n] })),
        ]);
        for (const running of await acquire(1)) taken.add(running.id);
      });
      expect(new Set(ids).size).toBe(ids.length);
      const throughout = first.map((r) => r.id).filter((id) => !taken.has(id));
      expect(ids.filter((id) => first.some((r) => r.id === id))).toEqual(
        first.map((r) => r.id).filter((id) => ids.includes(id)),
      );
      for (const id of throughout) expect(ids).toContain(id);
    });

    it("lists every segment in peek's order, one record a page, ending with no next", async () => {
      const { backend } = subject();
      const due = new Date(Date.now() + 60_000);
      await backend.tasks.enqueueMany([record(), record(), record(), record(), record(), record()]);
      await backend.tasks.enqueueMany([record({ runAfter: due }), record({ runAfter: due })]);
      await backend.tasks.enqueue(record({ runAfter: new Date(Date.now() + 30_000) }));
      const [a, b, c] = await acquire(3);
      await backend.leases.acknowledge([succeeded(a), failedAttempt(b, new Error('boom'))]);
      await backend.leases.acknowledge([succeeded(c)]);
      const [waiting] = await backend.reads.peek('default', 'ready', 1);
      await backend.control.cancel(waiting.id, decideCancel);
      await acquire(1);
      for (const segment of QUEUE_SEGMENTS) {
        const peeked = (await backend.reads.peek('default', segment, 100)).map((r) => r.id);
        expect(peeked.length).toBeGreaterThan(0);
        const { ids, calls } = await allPages({ queue: 'default', segment, limit: 1 });
        expect({ segment, ids }).toEqual({ segment, ids: peeked });
        expect(calls).toBeLessThanOrEqual(peeked.length + 1);
      }
      await expect(
        backend.reads.listTasks({ queue: 'emails', segment: 'ready', limit: 10 }),
      ).resolves.toEqual({ records: [], next: null });
    });

    it('goes on after the entry its cursor names is gone, among entries of one score', async () => {
      const { backend } = subject();
      const due = new Date(Date.now() + 60_000);
      await backend.tasks.enqueueMany(Array.from({ length: 9 }, () => record({ runAfter: due })));
      await backend.tasks.enqueueMany(Array.from({ length: 6 }, () => record()));
      const finishedAt = new Date();
      const running = await acquire(6);
      await backend.leases.acknowledge(
        running.map((r) => recordWith(succeeded(r), { finishedAt })),
      );
      for (const segment of ['deferred', 'successful'] as const) {
        const expected = (await backend.reads.peek('default', segment, 100)).map((r) => r.id);
        let page = await backend.reads.listTasks({ queue: 'default', segment, limit: 2 });
        const ids: string[] = [];
        for (;;) {
          ids.push(...page.records.map((r) => r.id));
          if (page.next === null) break;
          // The entry the cursor names leaves the segment before the next page is read.
          const last = page.records[page.records.length - 1];
          if (segment === 'deferred') await backend.control.cancel(last.id, decideCancel);
          else await backend.control.removeFinished(last);
          page = await backend.reads.listTasks({
            queue: 'default',
            segment,
            limit: 2,
            cursor: page.next,
          });
        }
        expect({ segment, ids }).toEqual({ segment, ids: expected });
      }
    });

    it('filters by task name: a page may come back short with next set, and every match is listed once', async () => {
      const { backend } = subject();
      const rare = (i: number) => record({ name: 'contract.rare', args: [i] });
      const others = (count: number) =>
        Array.from({ length: count }, () => record({ name: 'contract.other' }));
      await backend.tasks.enqueueMany([rare(1), ...others(50), rare(2), rare(3)]);
      const query = { queue: 'default', segment: 'ready' as QueueSegment, limit: 2 };
      const page = await backend.reads.listTasks({ ...query, taskName: 'contract.rare' });
      expect(page.records.map((r) => r.args)).toEqual([[1]]);
      expect(page.next).not.toBeNull();
      const { ids } = await allPages({ ...query, taskName: 'contract.rare' });
      const listed = await Promise.all(ids.map((id) => backend.tasks.getResult(id)));
      expect(listed.map((r) => r.args)).toEqual([[1], [2], [3]]);
      const none = await backend.reads.listTasks({ ...query, taskName: 'contract.none' });
      expect(none.records).toEqual([]);
    });

    it('examines a bounded number of entries per filtered page, however many tasks of other names wait', async () => {
      const { backend } = subject();
      const total = 20_000;
      for (let i = 0; i < total; i += 5000) {
        await backend.tasks.enqueueMany(
          Array.from({ length: 5000 }, () => record({ name: 'contract.other' })),
        );
      }
      await backend.tasks.enqueueMany([
        record({ name: 'contract.rare' }),
        record({ name: 'contract.rare' }),
      ]);
      const limit = 10;
      const query = {
        queue: 'default',
        segment: 'ready' as const,
        limit,
        taskName: 'contract.rare',
      };
      const first = await backend.reads.listTasks(query);
      expect(first).toMatchObject({ records: [] });
      expect(first.next).not.toBeNull();
      // Each page examined exactly its bound: the pages it took say how far each one looked.
      const { ids, calls } = await allPages(query);
      expect(ids).toHaveLength(2);
      expect(calls).toBe(Math.ceil((total + 2) / (limit * LIST_SCAN_PER_RECORD)));
    });

    it('refuses a cursor of another listing, a limit out of range and an unknown queue', async () => {
      const { backend } = subject();
      await backend.tasks.enqueueMany([record(), record()]);
      const { next } = await backend.reads.listTasks({
        queue: 'default',
        segment: 'ready',
        limit: 1,
      });
      const elsewhere = { queue: 'default', segment: 'deferred' as const, limit: 1 };
      await expect(backend.reads.listTasks({ ...elsewhere, cursor: next! })).rejects.toThrow(
        InvalidQueryError,
      );
      await expect(
        backend.reads.listTasks({ ...elsewhere, cursor: 'not-a-cursor' }),
      ).rejects.toThrow(InvalidQueryError);
      await expect(backend.reads.listTasks({ ...elsewhere, limit: 501 })).rejects.toThrow(
        InvalidQueryError,
      );
      await expect(
        backend.reads.listTasks({ queue: 'nope', segment: 'ready', limit: 1 }),
      ).rejects.toThrow(UnknownQueueError);
    });

    it('lists the pools with their info, keeps it on a beat without, and forgets a retired or recovered pool', async () => {
      const { backend } = subject();
      const info: PoolInfo = {
        host: 'box-1',
        pid: 4242,
        children: 2,
        slots: 8,
        queues: ['default', 'emails'],
        startedAt: new Date(Date.now() - 5000),
      };
      const before = Date.now();
      await backend.pools.beat('pool-a', 60_000, info);
      await backend.pools.beat('pool-b', 60_000);
      await backend.tasks.enqueue(record());
      await acquire(1, 'pool-a');
      await backend.pools.beat('pool-a', 60_000);
      const [a, b] = await backend.pools.list();
      expect(a).toEqual({
        ...info,
        id: 'pool-a',
        alive: true,
        held: 1,
        beatAt: a.beatAt,
        expiresAt: a.expiresAt,
      });
      expect(a.beatAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(a.expiresAt.getTime() - a.beatAt.getTime()).toBe(60_000);
      expect(b).toMatchObject({ id: 'pool-b', host: '', pid: 0, queues: [], alive: true, held: 0 });
      await backend.pools.retire('pool-b');
      expect((await backend.pools.list()).map((p) => p.id)).toEqual(['pool-a']);
      await backend.pools.beat('pool-c', 1, info);
      await waitFor(
        async () => (await backend.pools.list()).find((p) => p.id === 'pool-c')?.alive === false,
        {
          what: "pool-c's heartbeat to lapse",
        },
      );
      await runMaintenancePass(backend, { poolId: 'pool-a' });
      expect((await backend.pools.list()).map((p) => p.id)).toEqual(['pool-a']);
    });

    it('counts enqueued and finished tasks per bucket, with the mean wait and run of those finished', async () => {
      const { backend } = subject();
      const query = { windowMs: 3_600_000, bucketMs: 60_000 };
      await backend.tasks.enqueueMany(
        Array.from({ length: 5 }, () => record({ enqueuedAt: new Date(Date.now() - 5000) })),
      );
      await backend.tasks.enqueue(record({ queue: 'emails' }));
      const running = await acquire(3);
      await waitFor(() => Date.now() >= running[0].lastAttemptedAt!.getTime() + 30, {
        what: 'the attempts to run 30 ms',
      });
      await backend.leases.acknowledge([succeeded(running[0]), succeeded(running[1])]);
      await backend.leases.acknowledge([failedAttempt(running[2], new Error('boom'))]);
      const [waiting] = await backend.reads.peek('default', 'ready', 1);
      await backend.control.cancel(waiting.id, decideCancel);

      const activity = await backend.reads.activity(query);
      expect(activity.bucketMs).toBe(60_000);
      expect(activity.start.getTime() % 60_000).toBe(0);
      expect(Object.keys(activity.queues).sort()).toEqual(['default', 'emails', 'low']);
      const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
      const { default: main, emails } = activity.queues;
      for (const values of Object.values(main)) expect(values).toHaveLength(60);
      expect({
        enqueued: sum(main.enqueued),
        successful: sum(main.successful),
        failed: sum(main.failed),
        cancelled: sum(main.cancelled),
        emails: sum(emails.enqueued),
      }).toEqual({ enqueued: 5, successful: 2, failed: 1, cancelled: 1, emails: 1 });
      // Everything happened within the last two buckets; the others are empty.
      expect(sum(main.enqueued.slice(0, 58))).toBe(0);
      expect(main.waitMs.slice(0, 58).every((w) => w === null)).toBe(true);
      const waits = main.waitMs.filter((w): w is number => w !== null);
      const runs = main.runMs.filter((r): r is number => r !== null);
      expect(waits.length).toBeGreaterThan(0);
      for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(4900);
      for (const run of runs) expect(run).toBeGreaterThanOrEqual(25);
      expect(emails.runMs.every((r) => r === null)).toBe(true);
      await expect(backend.reads.activity({ windowMs: 3_600_000, bucketMs: 1500 })).rejects.toThrow(
        InvalidQueryError,
      );
      await expect(
        backend.reads.activity({ windowMs: 86_400_001, bucketMs: 60_000 }),
      ).rejects.toThrow(InvalidQueryError);
    });
  });
}
