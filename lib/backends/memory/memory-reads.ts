import { ACTIVITY_SEGMENTS, ActivityBuckets } from '../activity-buckets';
import type { BackendTelemetry } from '../../core/backend-telemetry.interface';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { listedPage, planListing } from '../list-cursor';
import { POOLS_LISTED_MAX, poolStatuses } from '../pool-status';
import type { FinishedSegment, QueueSegment } from '../../core/queue-segment';
import type {
  ActivityQuery,
  BackendActivity,
  PoolStatus,
  QueueActivity,
  TaskListQuery,
  TaskPage,
} from '../../core/task-listing';
import { recordWithProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import { MemoryListing } from './memory-listing';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';

/**
 * What callers and operators read of a MemoryBackend: a segment's tasks
 * (peek, pages), counts and rates, activity per bucket, the pools, and one
 * task's result. A read changes nothing, except
 * that a result found expired is dropped.
 *
 * @internal
 */
export class MemoryReads {
  private readonly listing: MemoryListing;

  constructor(
    private readonly alias: string,
    private readonly store: MemoryStore,
  ) {
    this.listing = new MemoryListing(store, (record) => this.copy(record));
  }

  peek(queue: string, segment: QueueSegment, count: number): TaskRecord[] {
    // Every id when some may be skipped (a result past its TTL): the count is of records found.
    const ids = this.listing.ids(queue, segment, segment === 'ready' ? count : Infinity);
    const now = Date.now();
    const found: TaskRecord[] = [];
    for (const id of ids) {
      const record = this.store.find(id, now);
      if (record) found.push(this.copy(record));
      if (found.length >= count) break;
    }
    return found;
  }

  listTasks(query: TaskListQuery): TaskPage {
    const plan = planListing(this.alias, [...this.store.queueStates.keys()], query);
    return listedPage(plan, this.listing.scan(plan));
  }

  pools(): PoolStatus[] {
    return poolStatuses(this.store.pools.stored().slice(0, POOLS_LISTED_MAX), Date.now());
  }

  /** Counts every ingress time and history entry of the window; samples the first of each bucket. */
  activity(query: ActivityQuery): BackendActivity {
    const { store } = this;
    const now = Date.now();
    const buckets = ActivityBuckets.plan(query, now);
    const perBucket = buckets.samplesPerBucket(store.queueStates.size);
    const queues: Record<string, QueueActivity> = {};
    for (const [queue, state] of store.queueStates) {
      const tally = buckets.tally();
      for (const at of state.ingress) tally.add('enqueued', buckets.indexOf(at));
      for (const segment of ACTIVITY_SEGMENTS) {
        const sampled = new Array<number>(buckets.count).fill(0);
        for (const [id, finishedAt] of state.history[segment]) {
          const index = buckets.indexOf(finishedAt);
          const record = index < 0 ? undefined : store.liveResult(id, now);
          if (!record) continue;
          tally.add(segment, index);
          if (sampled[index]++ < perBucket) tally.sample(index, record);
        }
      }
      queues[queue] = tally.result();
    }
    return { start: new Date(buckets.start), bucketMs: buckets.bucketMs, queues };
  }

  telemetry(intervalMs: number): BackendTelemetry {
    const { store } = this;
    const now = Date.now();
    const since = now - intervalMs;
    const telemetry: BackendTelemetry = { queues: {} };
    for (const [queue, state] of store.queueStates) {
      const running = [...store.leases.values()].filter((lease) => lease.queue === queue).length;
      const live = (segment: FinishedSegment): number[] =>
        [...state.history[segment].entries()]
          .filter(([id]) => store.liveResult(id, now))
          .map(([, finishedAt]) => finishedAt);
      const successful = live('successful');
      const failed = live('failed');
      const cancelled = live('cancelled');
      const failedInWindow = failed.filter((t) => t >= since).length;
      telemetry.queues[queue] = {
        counts: {
          ready: state.ready.size,
          running,
          deferred: state.deferred.size,
          successful: successful.length,
          failed: failed.length,
          cancelled: cancelled.length,
        },
        rates: {
          intervalMs,
          ingress: state.ingress.filter((t) => t >= since).length,
          egress:
            successful.filter((t) => t >= since).length +
            failedInWindow +
            cancelled.filter((t) => t >= since).length,
          failed: failedInWindow,
        },
      };
    }
    return telemetry;
  }

  /** A copy of what is held for `id`; throws TaskResultDoesNotExist when nothing is. */
  getResult(id: string): TaskRecord {
    const record = this.store.find(id, Date.now());
    if (!record) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return this.copy(record);
  }

  /** A copy the caller may change, with its stored progress. */
  private copy(record: TaskRecord): TaskRecord {
    return recordWithProgress(copyRecord(record), this.store.progress.get(record.id));
  }
}
