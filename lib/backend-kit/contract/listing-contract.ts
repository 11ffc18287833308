import { InvalidQueryError } from '../../core/errors/invalid-query.error';
import { UnknownQueueError } from '../../core/errors/unknown-queue.error';
import { LIST_SCAN_PER_RECORD } from '../../backends/list-cursor';
import { QUEUE_SEGMENTS, type QueueSegment } from '../../core/queue-segment';
import { recordWith } from '../../core/record-with';
import type { TaskBackend } from '../../core/task-backend.interface';
import { failedAttempt } from '../../lifecycle/retry-policy';
import type { TaskListQuery } from '../../core/task-listing';
import { decideCancel } from '../../lifecycle/cancel-decision';
import type { ContractRunner } from './contract-runner';
import { operatorReadCalls } from './operator-read-calls';

/**
 * The contract of the operators' task pages: a segment read from a cursor
 * (peek's order, none skipped or repeated while tasks come and go, a name
 * filter that examines a bounded number of entries per page). Part of
 * describeBackendContract, run on every backend.
 */
export function describeListing(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('listing', () => {
    const { record, acquire, succeeded } = operatorReadCalls(subject);

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
  });
}
