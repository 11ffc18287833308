import { AcknowledgementTimeout } from '../core/errors/acknowledgement-timeout.error';
import { CorruptTaskDataError } from '../core/errors/corrupt-task-data.error';
import { WorkerCrashed } from '../core/errors/worker-crashed.error';
import { TaskTimeoutError } from '../core/errors/task-timeout.error';
import { WorkerLost } from '../core/errors/worker-lost.error';
import { taskTimedOut } from '../core/control.messages';
import type { TaskErrorRecord, TaskRecord } from '../core/task-record.interface';
import { nextAttempt } from './retry-policy';
import { acknowledgementTimeout, corruptTaskData, workerLost } from '../core/threadmill.messages';
import type { AbandonedAttempt } from '../core/ports/maintenance-store.port';
import { unreadableRecord } from '../core/unreadable-record';

/**
 * How an attempt that ended without an acknowledge continues, written once
 * for every path (the reaper, pool recovery, a crashed child's tasks): the
 * error appended, then back for another attempt or FAILED, as the task's
 * retry policy decides (nextAttempt). A task whose data cannot be read fails
 * whatever its (unknowable) policy.
 */
export function endAttempt(
  ended: AbandonedAttempt,
  error: TaskErrorRecord,
  at: Date,
  alias: string,
): TaskRecord {
  if (ended.record === null) {
    // Its last error says why it cannot run again.
    const unreadable = lostAttempt(
      CorruptTaskDataError.name,
      corruptTaskData(ended.id, 'its stored data cannot be read'),
    );
    return unreadableRecord(ended.id, { queue: ended.queue, alias }, at, [error, unreadable]);
  }
  return nextAttempt(ended.record, error, at);
}

import { workerCrashed } from './lifecycle.messages';

// The errors of attempts that ended without a word from the task: each the
// class name and its message, with no stack (where it was noticed says nothing
// about the task), the same on every backend.
const lostAttempt = (className: string, message: string): TaskErrorRecord => ({
  className,
  traceback: `${className}: ${message}`,
});

/** Its lease ran out before it was acknowledged. */
export const leaseEnded = (id: string, leaseTtlMs: number): TaskErrorRecord =>
  lostAttempt(AcknowledgementTimeout.name, acknowledgementTimeout(id, leaseTtlMs));

/** Its pool's heartbeat lapsed while it held the task. */
export const poolLost = (id: string, taskName: string, poolId: string): TaskErrorRecord =>
  lostAttempt(WorkerLost.name, workerLost(id, taskName, poolId));

/** The child process running it died. */
export const childCrashed = (
  id: string,
  taskName: string,
  pid: number,
  cause: string,
): TaskErrorRecord => lostAttempt(WorkerCrashed.name, workerCrashed(id, taskName, pid, cause));

/** It ran past its time limit, ignoring its signal, and its child was stopped for it. */
export const timeLimitOverrun = (
  id: string,
  taskName: string,
  timeoutMs: number,
): TaskErrorRecord => lostAttempt(TaskTimeoutError.name, taskTimedOut(id, taskName, timeoutMs));
