import { TaskCancelledError } from '../core/errors/task-cancelled.error';
import { recordWith } from '../core/record-with';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { errorToRecord } from '../core/task-serializer';
import { taskCancelled } from '../core/control.messages';

/**
 * The final record of a cancelled task, written once for every path (a
 * waiting task cancelled by a backend, a running attempt that stopped on its
 * signal): CANCELLED, finished `now`, the TaskCancelledError appended to its
 * errors so the result says why it ended. Never retried.
 */
export function cancelledRecord(
  record: TaskRecord,
  now: Date,
  error = new TaskCancelledError(taskCancelled(record.id, record.task.name)),
): TaskRecord {
  return recordWith(record, {
    status: TaskResultStatus.CANCELLED,
    finishedAt: now,
    errors: [...record.errors, errorToRecord(error)],
  });
}
