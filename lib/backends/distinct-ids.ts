import { InvalidTaskError } from '../core/errors/invalid-task.error';
import type { TaskRecord } from '../core/task-record.interface';
import { duplicateIdInCall } from '../core/threadmill.messages';

/**
 * Refuses a bulk enqueue that names one id twice (InvalidTaskError): the
 * second would clash with the first inside one call, and which of the two
 * the store kept would depend on the backend.
 */
export function assertDistinctIds(records: readonly Pick<TaskRecord, 'id'>[]): void {
  if (records.length < 2) return;
  const seen = new Set<string>();
  for (const { id } of records) {
    if (seen.has(id)) throw new InvalidTaskError(duplicateIdInCall(id));
    seen.add(id);
  }
}
