import { newTaskId } from '../../lib/core/task-id';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';

export interface ReadyRecordFields {
  id?: string;
  name?: string;
  queue?: string;
  priority?: number;
  runAfter?: Date | null;
  args?: unknown[];
  enqueuedAt?: Date;
}

/** A READY record as the task layer hands it to `enqueue`; every test and bench builds them here. */
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

/** A RUNNING record as a worker holds it after acquire: `readyRecord` leased to `workerId`. */
export function runningRecord(
  alias: string,
  fields: ReadyRecordFields = {},
  workerId = 'host:1-0',
): TaskRecord {
  const record = readyRecord(alias, fields);
  return {
    ...record,
    status: TaskResultStatus.RUNNING,
    startedAt: record.enqueuedAt,
    lastAttemptedAt: record.enqueuedAt,
    workerIds: [workerId],
  };
}
