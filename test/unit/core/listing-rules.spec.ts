import {
  ACTIVITY_MAX_BUCKETS,
  ACTIVITY_SAMPLES_PER_BUCKET,
  ActivityBuckets,
  attemptTimes,
} from '../../../lib/backends/activity-buckets';
import { InvalidQueryError } from '../../../lib/core/errors/invalid-query.error';
import { UnknownQueueError } from '../../../lib/core/errors/unknown-queue.error';
import {
  LIST_SCAN_MAX,
  listedPage,
  planListing,
  scanListing,
} from '../../../lib/backends/list-cursor';
import { encodePoolInfo, poolStatuses } from '../../../lib/backends/pool-status';
import { recordWith } from '../../../lib/core/record-with';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { readyRecord } from '../../helpers/ready-record';

describe('listing rules', () => {
  const queues = ['default', 'emails'];
  const ready = (name = 'a'): TaskRecord => readyRecord('x', { name });

  describe('planListing', () => {
    it('scans the limit unfiltered, 20 entries a record filtered, never more than the bound', () => {
      const plan = (limit: number, taskName?: string) =>
        planListing('x', queues, { queue: 'default', segment: 'ready', limit, taskName });
      expect(plan(10).scan).toBe(10);
      expect(plan(10, 'a').scan).toBe(200);
      expect(plan(500, 'a').scan).toBe(LIST_SCAN_MAX);
    });

    it('refuses an unknown queue or segment, a limit out of range and a cursor of another listing', () => {
      const query = { queue: 'default', segment: 'ready' as const, limit: 1 };
      expect(() => planListing('x', queues, { ...query, queue: 'nope' })).toThrow(
        UnknownQueueError,
      );
      for (const bad of [
        { segment: 'waiting' as never },
        { limit: 0 },
        { limit: 1.5 },
        { cursor: '%%%' },
        { cursor: Buffer.from('[1,"default","ready","x",1]').toString('base64url') },
      ]) {
        expect(() => planListing('x', queues, { ...query, ...bad })).toThrow(InvalidQueryError);
      }
    });
  });

  describe('a page and its cursor', () => {
    const plan = planListing('x', queues, { queue: 'default', segment: 'ready', limit: 2 });
    const candidates: { score: number; record: TaskRecord | null }[] = [1, 2, 3, 4].map(
      (score) => ({ score, record: ready() }),
    );
    const scan = (items: typeof candidates, limit = plan.limit, examined = plan.scan) =>
      scanListing(
        { ...plan, limit, scan: examined },
        items,
        ({ score }) => ({ score, tie: `id-${score}` }),
        ({ record }) => record,
      );

    it('stops at the limit, and the next page starts after its last record', () => {
      const page = listedPage(plan, scan(candidates));
      expect(page.records).toHaveLength(2);
      const next = planListing('x', queues, {
        queue: 'default',
        segment: 'ready',
        limit: 2,
        cursor: page.next!,
      });
      expect(next.after).toEqual({ score: 2, tie: 'id-2' });
      expect(() =>
        planListing('x', queues, {
          queue: 'emails',
          segment: 'ready',
          limit: 2,
          cursor: page.next!,
        }),
      ).toThrow(InvalidQueryError);
    });

    it('has no next once the segment ended, even when the last record fills the page', () => {
      expect(listedPage(plan, scan(candidates.slice(0, 2))).next).toBeNull();
      expect(listedPage(plan, scan(candidates.slice(0, 1))).next).toBeNull();
    });

    it('skips unreadable records and ones now in another segment, going on after the last examined', () => {
      const finished = recordWith(ready(), { status: TaskResultStatus.SUCCESSFUL });
      const items = [
        { score: 1, record: null },
        { score: 2, record: finished },
        { score: 3, record: ready() },
      ];
      const page = listedPage(plan, scan(items, plan.limit, 2));
      expect(page.records).toEqual([]);
      const next = planListing('x', queues, {
        queue: 'default',
        segment: 'ready',
        limit: 2,
        cursor: page.next!,
      });
      expect(next.after).toEqual({ score: 2, tie: 'id-2' });
    });
  });

  describe('ActivityBuckets', () => {
    it('aligns whole-second buckets so the last one holds now', () => {
      const now = 10 * 60_000 + 1234;
      const buckets = ActivityBuckets.plan({ windowMs: 3 * 60_000, bucketMs: 60_000 }, now);
      expect({ start: buckets.start, end: buckets.end, count: buckets.count }).toEqual({
        start: 8 * 60_000,
        end: 11 * 60_000,
        count: 3,
      });
      expect([
        buckets.indexOf(now),
        buckets.indexOf(8 * 60_000),
        buckets.indexOf(7 * 60_000),
      ]).toEqual([2, 0, -1]);
      expect(buckets.bounds(1)).toEqual({ from: 9 * 60_000, to: 10 * 60_000 });
    });

    it('samples at most a few finished tasks a bucket, fewer when there are many buckets and queues', () => {
      const hour = ActivityBuckets.plan({ windowMs: 3_600_000, bucketMs: 60_000 }, 0);
      expect(hour.samplesPerBucket(3)).toBe(ACTIVITY_SAMPLES_PER_BUCKET);
      const day = ActivityBuckets.plan({ windowMs: 86_400_000, bucketMs: 60_000 }, 0);
      expect(day.count).toBe(ACTIVITY_MAX_BUCKETS);
      expect(day.samplesPerBucket(10)).toBe(1);
    });

    it('refuses buckets that are not whole seconds, and windows of no bucket or too many', () => {
      for (const query of [
        { windowMs: 60_000, bucketMs: 999 },
        { windowMs: 60_000, bucketMs: 1500 },
        { windowMs: 0, bucketMs: 1000 },
        { windowMs: 1441 * 60_000, bucketMs: 60_000 },
      ]) {
        expect(() => ActivityBuckets.plan(query, 0)).toThrow(InvalidQueryError);
      }
    });

    it('tallies counts and the mean wait and run of the samples per bucket', () => {
      const buckets = ActivityBuckets.plan({ windowMs: 120_000, bucketMs: 60_000 }, 60_000);
      const tally = buckets.tally();
      const finished = (enqueued: number, started: number, finishedAt: number) =>
        recordWith(readyRecord('x', { enqueuedAt: new Date(enqueued) }), {
          status: TaskResultStatus.SUCCESSFUL,
          startedAt: new Date(started),
          lastAttemptedAt: new Date(started),
          finishedAt: new Date(finishedAt),
        });
      tally.add('enqueued', 1, 3);
      tally.add('successful', 1);
      tally.add('failed', 7);
      tally.sample(1, finished(0, 100, 400));
      tally.sample(1, finished(0, 300, 400));
      expect(tally.result()).toEqual({
        enqueued: [0, 3],
        successful: [0, 1],
        failed: [0, 0],
        cancelled: [0, 0],
        waitMs: [null, 200],
        runMs: [null, 200],
      });
    });

    it('measures wait from a runAfter reached before the first start, and none for a task that never started', () => {
      const deferred = recordWith(
        readyRecord('x', { enqueuedAt: new Date(0), runAfter: new Date(1000) }),
        { startedAt: new Date(1500), lastAttemptedAt: new Date(2000), finishedAt: new Date(2600) },
      );
      expect(attemptTimes(deferred)).toEqual({ waitMs: 500, runMs: 600 });
      expect(attemptTimes(recordWith(ready(), { finishedAt: new Date(5) }))).toBeNull();
    });
  });

  describe('poolStatuses', () => {
    const info = {
      host: 'h',
      pid: 7,
      children: 1,
      slots: 2,
      queues: ['default'],
      startedAt: new Date(100),
    };

    it('decides alive on the store clock and moves times to the reader clock', () => {
      const [status] = poolStatuses(
        [{ id: 'p', deadlineMs: 5000, beatAtMs: 2000, info: encodePoolInfo(info), held: 3 }],
        4000,
        4100,
      );
      expect(status).toEqual({
        ...info,
        id: 'p',
        beatAt: new Date(2100),
        expiresAt: new Date(5100),
        alive: true,
        held: 3,
      });
    });

    it('fills what a pool without readable info did not say, sorted by id', () => {
      const statuses = poolStatuses(
        [
          { id: 'b', deadlineMs: 10, beatAtMs: null, info: '{"host":1}', held: 0 },
          { id: 'a', deadlineMs: 10, beatAtMs: 5, info: null, held: 0 },
        ],
        20,
      );
      expect(statuses.map((s) => [s.id, s.host, s.alive, s.beatAt.getTime()])).toEqual([
        ['a', '', false, 5],
        ['b', '', false, 10],
      ]);
    });
  });
});
