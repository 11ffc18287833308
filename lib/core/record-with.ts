import type { TaskDescriptor, TaskErrorRecord, TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/** The fields a copy may change; an absent (undefined) one keeps the record's value. */
export interface TaskRecordChanges {
  readonly task?: TaskDescriptor;
  readonly status?: TaskResultStatus;
  readonly startedAt?: Date | null;
  readonly finishedAt?: Date | null;
  readonly lastAttemptedAt?: Date | null;
  readonly errors?: readonly TaskErrorRecord[];
  readonly workerIds?: readonly string[];
  /** Kept only when the copy is SUCCESSFUL; undefined keeps the record's (`null` when it has none). */
  readonly returnValue?: unknown;
  /** Undefined keeps the record's pending cancel; null drops it (a retry by hand). */
  readonly cancelRequestedAt?: Date | null;
}

/**
 * A copy of `record` with `changes`, built field by field. A spread copy
 * (`{ ...record, status }`) takes the shape of whatever it copies, and a
 * worker's records come from several places (decoded, re-stamped, retried),
 * so the code that copies and reads them goes megamorphic: in a pool child
 * the spread in TaskRunner alone cost about 5 µs of a no-op task's 18. Every
 * copy made here has one of two shapes, with or without `returnValue`, which
 * is present exactly when the copy is SUCCESSFUL (as TaskRecord promises).
 */
export function recordWith(record: TaskRecord, changes: TaskRecordChanges): TaskRecord {
  const copy = copyWith(record, changes);
  const cancelRequestedAt =
    changes.cancelRequestedAt === undefined ? record.cancelRequestedAt : changes.cancelRequestedAt;
  // Rare (a cancel pending), so added after: the common copies keep their two shapes.
  return cancelRequestedAt ? { ...copy, cancelRequestedAt } : copy;
}

function copyWith(record: TaskRecord, changes: TaskRecordChanges): TaskRecord {
  const { id, enqueuedAt, args } = record;
  const task = changes.task ?? record.task;
  const status = changes.status ?? record.status;
  const startedAt = changes.startedAt === undefined ? record.startedAt : changes.startedAt;
  const finishedAt = changes.finishedAt === undefined ? record.finishedAt : changes.finishedAt;
  const lastAttemptedAt =
    changes.lastAttemptedAt === undefined ? record.lastAttemptedAt : changes.lastAttemptedAt;
  const errors = changes.errors ?? record.errors;
  const workerIds = changes.workerIds ?? record.workerIds;
  // Two whole literals, not one spread into the other: a spread that adds a field was as slow here as the spreads this replaces.
  if (status !== TaskResultStatus.SUCCESSFUL) {
    return {
      id,
      task,
      status,
      enqueuedAt,
      startedAt,
      finishedAt,
      lastAttemptedAt,
      args,
      errors,
      workerIds,
    };
  }
  const returnValue =
    changes.returnValue === undefined ? (record.returnValue ?? null) : changes.returnValue;
  return {
    id,
    task,
    status,
    enqueuedAt,
    startedAt,
    finishedAt,
    lastAttemptedAt,
    args,
    errors,
    workerIds,
    returnValue,
  };
}
