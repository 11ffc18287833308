import { recordWith } from '../core/record-with';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';

/**
 * The record of a final task retried by hand, written once for every
 * backend: READY in its queue now (`runAfter` cleared), `finishedAt`
 * cleared, its errors and worker ids kept so its history shows. The retry
 * budget is not renewed: attempts still count over every worker id, so a
 * task whose retries were used up runs exactly once more (nextAttempt fails
 * it after that attempt), and one cancelled with retries left keeps them.
 */
export function manualRetryRecord(record: TaskRecord): TaskRecord {
  return recordWith(record, {
    task: { ...record.task, runAfter: null },
    status: TaskResultStatus.READY,
    finishedAt: null,
    // The cancel it ended by is spent: the new attempt runs.
    cancelRequestedAt: null,
  });
}
