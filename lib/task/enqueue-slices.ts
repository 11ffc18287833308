import { ENQUEUE_SLICE } from '../backends/enqueue-coalescer';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';

// Defined beside the coalescer, which caps its batches by it too.
export { ENQUEUE_SLICE };

/** What a sliced enqueue stored, and the error of the slice that failed, if one did. */
export interface SlicedEnqueue {
  /** The records as stored (a unique key's holder in place of its record), a prefix of those sent. */
  stored: TaskRecord[];
  failure?: Error;
}

/**
 * Stores `records` in slices of ENQUEUE_SLICE, one after the other, so
 * their order is kept and unique keys shared across slices act as if sent
 * one by one. It stops at the first slice that fails.
 */
export async function enqueueInSlices(
  backend: TaskBackend,
  records: readonly TaskRecord[],
): Promise<SlicedEnqueue> {
  // One record goes through enqueue, which gathers it with the other enqueues of this tick.
  if (records.length === 1) return { stored: [await backend.tasks.enqueue(records[0])] };
  // One slice: the backend's own error, thrown as it is.
  if (records.length <= ENQUEUE_SLICE) return { stored: await backend.tasks.enqueueMany(records) };
  const stored: TaskRecord[] = [];
  for (let start = 0; start < records.length; start += ENQUEUE_SLICE) {
    try {
      stored.push(
        ...(await backend.tasks.enqueueMany(records.slice(start, start + ENQUEUE_SLICE))),
      );
    } catch (failure) {
      return { stored, failure: failure instanceof Error ? failure : new Error(String(failure)) };
    }
  }
  return { stored };
}
