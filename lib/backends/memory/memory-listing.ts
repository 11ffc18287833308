import {
  integerTie,
  scanListing,
  textTie,
  type ListPlan,
  type ListPosition,
  type ListScan,
} from '../list-cursor';
import type { QueueSegment } from '../../core/queue-segment';
import type { TaskRecord } from '../../core/task-record.interface';
import type { MemoryStore } from './memory-store';

/** An entry of a segment with its place in the listing order. */
interface OrderedEntry {
  readonly id: string;
  readonly position: ListPosition;
}

/**
 * The order of each segment of a MemoryBackend's queue, as its Redis ZSET
 * orders it: ready by score then arrival, deferred by due time, running by
 * lease deadline, finished newest first; ties broken by id. `peek` and
 * `listTasks` both read it, so their orders agree.
 *
 * @internal
 */
export class MemoryListing {
  constructor(
    private readonly store: MemoryStore,
    /** A copy of a stored record the caller may change. */
    private readonly copy: (record: TaskRecord) => TaskRecord,
  ) {}

  /** Up to `count` ids of a segment in listing order, from its first entry. */
  ids(queue: string, segment: QueueSegment, count: number): string[] {
    return this.ordered(queue, segment, null, count).map((entry) => entry.id);
  }

  /** The entries one page examines (see ListScan); `plan` was checked by planListing. */
  scan(plan: ListPlan): ListScan {
    const now = Date.now();
    // One entry more than may be examined tells whether the segment ends within the page.
    const ordered = this.ordered(plan.queue, plan.segment, plan.after, plan.scan + 1);
    return scanListing(
      plan,
      ordered,
      (entry) => entry.position,
      ({ id }) => {
        const stored = this.store.find(id, now);
        if (!stored || (plan.taskName !== undefined && stored.task.name !== plan.taskName)) {
          return null;
        }
        return this.copy(stored);
      },
    );
  }

  /** Up to `count` entries of a segment in listing order, after `after` (from the first when null). */
  private ordered(
    queue: string,
    segment: QueueSegment,
    after: ListPosition | null,
    count: number,
  ): OrderedEntry[] {
    const state = this.store.queueStates.get(queue);
    if (!state || count <= 0) return [];
    if (segment === 'ready') {
      const from = after === null ? null : { score: after.score, seq: integerTie(after) };
      return state.ready
        .after(from, count)
        .map(({ id, score, seq }) => ({ id, position: { score, tie: seq } }));
    }
    let scored: [string, number][];
    let direction = 1;
    switch (segment) {
      case 'deferred':
        scored = [...state.deferred.entries()];
        break;
      case 'running':
        scored = [...this.store.leases.entries()]
          .filter(([, lease]) => lease.queue === queue)
          .map(([id, lease]): [string, number] => [id, lease.deadline]);
        break;
      default:
        // Newest first: what an operator looking at history wants to see.
        scored = [...state.history[segment].entries()];
        direction = -1;
    }
    const from = after === null ? null : { score: after.score, tie: textTie(after) };
    const sorted = scored
      .map(([id, score]): OrderedEntry => ({ id, position: { score, tie: id } }))
      .sort((a, b) => direction * compare(a.position, b.position));
    let first = 0;
    if (from !== null) {
      // The first entry that sorts after the cursor's position.
      let high = sorted.length;
      while (first < high) {
        const mid = (first + high) >>> 1;
        if (direction * compare(sorted[mid].position, from) <= 0) first = mid + 1;
        else high = mid;
      }
    }
    return sorted.slice(first, first + count);
  }
}

/** Ascending order of positions: by score, then by tie-break. */
function compare(a: ListPosition, b: ListPosition): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0;
}
