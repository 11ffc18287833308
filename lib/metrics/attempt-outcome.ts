import { hasAttemptsLeft } from '../core/retry-policy';
import type { TaskDescriptor } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';

/** The final statuses, the `status` label of `threadmill_tasks_finished_total`. */
export type FinalStatus =
  TaskResultStatus.SUCCESSFUL | TaskResultStatus.FAILED | TaskResultStatus.CANCELLED;

/** What an ended attempt counts as: a task finished with its final status, or a retry. */
export type AttemptOutcome =
  { readonly counts: 'finished'; readonly status: FinalStatus } | { readonly counts: 'retry' };

/** The part of an ended attempt (a TaskResult of the `finished` event) the counters read. */
export interface EndedAttempt {
  readonly status: TaskResultStatus;
  readonly task: Pick<TaskDescriptor, 'retries'>;
  /** How many times a worker started the task, this attempt included. */
  readonly attempts: number;
}

/**
 * How an attempt that ended counts: SUCCESSFUL and CANCELLED are final; a
 * FAILED attempt is a retry while the task has attempts left (the rule
 * nextAttempt applies), final otherwise. Null for a status no attempt ends with.
 */
export function attemptOutcome(attempt: EndedAttempt): AttemptOutcome | null {
  switch (attempt.status) {
    case TaskResultStatus.SUCCESSFUL:
    case TaskResultStatus.CANCELLED:
      return { counts: 'finished', status: attempt.status };
    case TaskResultStatus.FAILED:
      return hasAttemptsLeft(attempt.task, attempt.attempts)
        ? { counts: 'retry' }
        : { counts: 'finished', status: TaskResultStatus.FAILED };
    default:
      return null;
  }
}

/** Seconds from `from` to `to`, never negative (two hosts' clocks may disagree a little). */
export function secondsBetween(from: Date | null, to: Date | null): number | null {
  if (from === null || to === null) return null;
  return Math.max(0, (to.getTime() - from.getTime()) / 1000);
}

/** When a task became due: its `runAfter` (a deferral or a retry's backoff) when later than its enqueue. */
export function dueAt(enqueuedAt: Date, runAfter: Date | null): Date {
  return runAfter !== null && runAfter.getTime() > enqueuedAt.getTime() ? runAfter : enqueuedAt;
}
