/**
 * Where a task is in its life. The words are stored as they are, so they are
 * shared with every backend (Lua included) and must never change.
 *
 * @publicApi
 */
export enum TaskResultStatus {
  READY = 'READY',
  RUNNING = 'RUNNING',
  SUCCESSFUL = 'SUCCESSFUL',
  FAILED = 'FAILED',
  /** Stopped on request (`tasks.cancel`): final, never retried. */
  CANCELLED = 'CANCELLED',
}

/** The statuses a task ends with for good (the `status` label of `threadmill_tasks_finished_total`). */
export type FinalStatus =
  TaskResultStatus.SUCCESSFUL | TaskResultStatus.FAILED | TaskResultStatus.CANCELLED;

/** Statuses after which a task never runs again. */
export const FINISHED_STATUSES: ReadonlySet<TaskResultStatus> = new Set([
  TaskResultStatus.SUCCESSFUL,
  TaskResultStatus.FAILED,
  TaskResultStatus.CANCELLED,
]);
