import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import type { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { waitFor } from './wait-for';

/** The records' tasks as `backend` stores them now, in order. */
export function storedRecords(
  backend: Pick<TaskBackend, 'tasks'>,
  records: readonly TaskRecord[],
): Promise<TaskRecord[]> {
  return Promise.all(records.map((r) => backend.tasks.getResult(r.id)));
}

/** Resolves with the records' tasks once every one of them has `status`. */
export function untilStatus(
  backend: Pick<TaskBackend, 'tasks'>,
  records: readonly TaskRecord[],
  status: TaskResultStatus,
  timeoutMs = 20_000,
): Promise<TaskRecord[]> {
  return waitFor(
    async () => {
      const now = await storedRecords(backend, records);
      return now.every((r) => r.status === status) ? now : null;
    },
    { timeoutMs, intervalMs: 50, what: `${records.length} task(s) ${status}` },
  );
}
