import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { readyRecord, type ReadyRecordFields } from '../../lib/backend-kit/contract/ready-record';

export { readyRecord, type ReadyRecordFields };

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
