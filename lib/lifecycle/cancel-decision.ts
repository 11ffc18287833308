import { cancelledRecord } from './cancelled-record';
import type { CancelDecision } from '../core/ports/control-store.port';
import { recordWith } from '../core/record-with';
import type { TaskRecord } from '../core/task-record.interface';
import { FINISHED_STATUSES } from '../core/task-result-status.enum';

/**
 * What a cancel makes of a task, written once for every backend (each
 * applies it in one atomic step with the task as it read it, and whether a
 * lease holds it): a final task stays as it is; a leased one is marked
 * (`cancelRequestedAt`, kept from an earlier cancel) so its pool stops it and
 * no later lease starts it; a waiting one is stored CANCELLED.
 */
export function decideCancel(record: TaskRecord, leased: boolean, now: Date): CancelDecision {
  if (FINISHED_STATUSES.has(record.status)) return { outcome: 'already-final', record };
  if (leased) {
    const marked = record.cancelRequestedAt
      ? record
      : recordWith(record, { cancelRequestedAt: now });
    return { outcome: 'requested', record: marked };
  }
  return { outcome: 'cancelled', record: cancelledRecord(record, now) };
}
