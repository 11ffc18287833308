import { recordWith } from '../core/record-with';
import { backoffDelay, hasAttemptsLeft } from '../core/retry-policy';
import type { TaskErrorRecord, TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { errorToRecord } from '../core/task-serializer';
import { cancelledRecord } from './cancelled-record';

/**
 * The record of an attempt that `thrown` ended: FAILED, finished `now`, the
 * thrown value appended to its errors. Whether it runs again is nextAttempt's
 * to decide.
 */
export function failedAttempt(record: TaskRecord, thrown: unknown, now = new Date()): TaskRecord {
  return recordWith(record, {
    status: TaskResultStatus.FAILED,
    finishedAt: now,
    errors: [...record.errors, errorToRecord(thrown)],
  });
}

/**
 * The one place an attempt's failure is decided. `record` is the task as it
 * ran (its `workerIds` already name this attempt, so they count it); `error`,
 * when given, is appended to its errors (pass null when the record already
 * carries it, as a runner's FAILED record does).
 *
 * Returns the record READY again with `task.runAfter` = now + backoff when
 * attempts are left (errors and worker ids kept, `finishedAt` cleared, no
 * progress: the next attempt starts without), or FAILED with `finishedAt` =
 * now after the last attempt (the progress `record` carries kept), or
 * CANCELLED when a cancel was asked of it (cancelRequestedAt). Pure: no I/O, so a
 * worker, the pool's crash path and every backend's reaper agree.
 */
export function nextAttempt(
  record: TaskRecord,
  error: TaskErrorRecord | null,
  now: Date,
  random: () => number = Math.random,
): TaskRecord {
  const errors = error ? [...record.errors, error] : record.errors;
  // A cancel asked while it was leased ends the task here, whatever its retries: it never runs again.
  if (record.cancelRequestedAt) return cancelledRecord(recordWith(record, { errors }), now);
  if (!hasAttemptsLeft(record.task, record.workerIds.length)) {
    const failed = recordWith(record, { status: TaskResultStatus.FAILED, finishedAt: now, errors });
    // The last progress the runner's record carries is stored with this outcome; a retry's is not.
    return record.progress === undefined ? failed : { ...failed, progress: record.progress };
  }
  const delay = backoffDelay(record.task.backoff, Math.max(record.workerIds.length, 1), random);
  return recordWith(record, {
    task: { ...record.task, runAfter: new Date(now.getTime() + delay) },
    status: TaskResultStatus.READY,
    finishedAt: null,
    errors,
  });
}
