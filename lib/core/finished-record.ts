import { InvalidTaskError } from './errors/invalid-task.error';
import type { TaskRecord } from './task-record.interface';
import { FINISHED_STATUSES } from './task-result-status.enum';
import { acknowledgeUnfinished } from './threadmill.messages';

/**
 * Refuses a record that is not final (READY, deferred or RUNNING) before a
 * backend stores any of a batch: stored as a result it would leave a task
 * that looks finished but never ran to an end. Every backend calls it, so
 * each refuses alike.
 *
 * @throws InvalidTaskError naming the record and its status.
 */
export function assertFinished(record: TaskRecord): void {
  if (!FINISHED_STATUSES.has(record.status)) {
    throw new InvalidTaskError(acknowledgeUnfinished(record.id, record.status));
  }
}
