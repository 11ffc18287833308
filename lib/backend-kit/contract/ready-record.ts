import { newTaskId } from '../../core/task-id';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';

export interface ReadyRecordFields {
  id?: string;
  name?: string;
  queue?: string;
  priority?: number;
  runAfter?: Date | null;
  args?: unknown[];
  enqueuedAt?: Date;
}

/** A READY record as the task layer hands it to `enqueue`; the suite, and this repository's tests and bench, build them here. */
export function readyRecord(
  alias: string,
  {
    id = newTaskId(),
    name = 'test.task',
    queue = 'default',
    priority = 0,
    runAfter = null,
    args = [],
    enqueuedAt = new Date(),
  }: ReadyRecordFields = {},
): TaskRecord {
  return {
    id,
    task: { name, queue, priority, runAfter, backend: alias },
    status: TaskResultStatus.READY,
    enqueuedAt,
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args,
    errors: [],
    workerIds: [],
  };
}
