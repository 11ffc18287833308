import type { TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/** Whether `stored` still holds the lease `leased` was returned with (the same attempt history). */
export function holdsLease(stored: TaskRecord, leased: TaskRecord): boolean {
  return (
    stored.status === TaskResultStatus.RUNNING &&
    stored.workerIds.length === leased.workerIds.length &&
    stored.workerIds.every((id, i) => id === leased.workerIds[i])
  );
}
