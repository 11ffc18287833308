import type { TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/**
 * What a leased task that never started becomes when its lease is given back
 * (TaskBackend.unlease): READY, as before the lease, with the lease's worker
 * id taken off its history, so no attempt is counted. A task leased for the
 * first time also loses its start time.
 */
export function unleasedRecord(record: TaskRecord): TaskRecord {
  const workerIds = record.workerIds.slice(0, -1);
  const neverStarted = workerIds.length === 0;
  return {
    ...record,
    status: TaskResultStatus.READY,
    workerIds,
    startedAt: neverStarted ? null : record.startedAt,
    lastAttemptedAt: neverStarted ? null : record.lastAttemptedAt,
  };
}

/** Whether `stored` still holds the lease `leased` was returned with (the same attempt history). */
export function holdsLease(stored: TaskRecord, leased: TaskRecord): boolean {
  return (
    stored.status === TaskResultStatus.RUNNING &&
    stored.workerIds.length === leased.workerIds.length &&
    stored.workerIds.every((id, i) => id === leased.workerIds[i])
  );
}
