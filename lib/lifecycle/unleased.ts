import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';

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

/** A READY task taken by `workerId` at `at`: RUNNING, its attempt counted, started at its first. */
export function leasedRecord(record: TaskRecord, workerId: string, at: Date): TaskRecord {
  return {
    ...record,
    status: TaskResultStatus.RUNNING,
    startedAt: record.startedAt ?? at,
    lastAttemptedAt: at,
    workerIds: [...record.workerIds, workerId],
  };
}

/**
 * A run its pool stopped urgently, back READY unfinished: the interrupted
 * run stays an attempt (its worker id kept), and the task runs again.
 */
export function releasedRecord(record: TaskRecord): TaskRecord {
  return { ...record, status: TaskResultStatus.READY };
}
