import type { TaskErrorRecord, TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/** The name an unreadable task is stored under: its own name is in the data that cannot be read. */
export const UNREADABLE_TASK_NAME = '(unreadable)';

/**
 * What a task whose stored data cannot be read becomes, on every backend:
 * FAILED at `at` with the error that says why (CorruptTaskDataError, or the
 * error of whatever ended its attempt), so it never stalls a consumer and its
 * id still answers `getResult`.
 */
export function unreadableRecord(
  id: string,
  where: { queue: string; alias: string },
  at: Date,
  errors: readonly TaskErrorRecord[],
  workerIds: readonly string[] = [],
): TaskRecord {
  return {
    id,
    task: {
      name: UNREADABLE_TASK_NAME,
      queue: where.queue,
      priority: 0,
      runAfter: null,
      backend: where.alias,
    },
    status: TaskResultStatus.FAILED,
    enqueuedAt: at,
    startedAt: workerIds.length > 0 ? at : null,
    finishedAt: at,
    lastAttemptedAt: workerIds.length > 0 ? at : null,
    args: [],
    errors: [...errors],
    workerIds: [...workerIds],
  };
}
