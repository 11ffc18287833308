import type { TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/**
 * What a retry by hand did: the task is READY again as a new attempt
 * (`retried`), or nothing changed because it has not finished (`not-final`:
 * waiting or running), it succeeded (`successful`: enqueue a new task to
 * run it again), or another call retried the attempt this one read first
 * (`already-retried`: that call's attempt is the one new attempt).
 */
export type ManualRetryOutcome = 'retried' | 'not-final' | 'successful' | 'already-retried';

/**
 * What a removal did: the final task's record and history entry are gone
 * (`removed`), or nothing changed because it has not finished (`not-final`:
 * cancel it first), another call removed it first (`already-removed`), or
 * another call retried the attempt this one read (`already-retried`: the
 * task is a new attempt now, which a removal must read before it deletes).
 */
export type RemoveOutcome = 'removed' | 'not-final' | 'already-removed' | 'already-retried';

/** The final statuses an operator may send back for another attempt. */
export const RETRYABLE_BY_HAND: ReadonlySet<TaskResultStatus> = new Set([
  TaskResultStatus.FAILED,
  TaskResultStatus.CANCELLED,
]);

/**
 * Whether `stored` is still the very final record `read` was: same status
 * and finish time. A backend stores a retry or a removal only while this
 * holds, so two of them racing on one task make one change.
 */
export function isSameFinished(stored: TaskRecord, read: TaskRecord): boolean {
  return (
    stored.status === read.status &&
    (stored.finishedAt?.getTime() ?? null) === (read.finishedAt?.getTime() ?? null) &&
    stored.errors.length === read.errors.length
  );
}

/**
 * The unique key a task retried by hand holds again while it waits or runs:
 * its own, unless it was debounced (a debounce holds its key only until
 * the task first runs). Its key was freed when it ended: a backend gives it
 * back only while no other unfinished task took it meanwhile.
 */
export function uniqueKeyHeldAgain(retried: TaskRecord): string | null {
  const unique = retried.task.unique;
  return unique && unique.mode !== 'debounce' ? unique.key : null;
}
