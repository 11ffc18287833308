import type { TaskRecord } from '../../core/task-record.interface';

const copyDate = (date: Date | null): Date | null => (date ? new Date(date.getTime()) : null);
const copyJson = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);

/**
 * A deep copy, so callers can never mutate what is stored. Built by hand rather than
 * with structuredClone, whose Dates come from the main realm and fail `instanceof Date`
 * inside Jest's sandbox, where users run this backend.
 *
 * @internal
 */
export function copyRecord(record: TaskRecord): TaskRecord {
  const copy: TaskRecord = {
    ...record,
    task: {
      ...record.task,
      runAfter: copyDate(record.task.runAfter),
      ...(record.task.schedule && {
        schedule: { id: record.task.schedule.id, tickAt: new Date(record.task.schedule.tickAt) },
      }),
      ...(record.task.traceContext && { traceContext: { ...record.task.traceContext } }),
      ...(record.task.unknownSince && {
        unknownSince: new Date(record.task.unknownSince.getTime()),
      }),
    },
    enqueuedAt: new Date(record.enqueuedAt.getTime()),
    startedAt: copyDate(record.startedAt),
    finishedAt: copyDate(record.finishedAt),
    lastAttemptedAt: copyDate(record.lastAttemptedAt),
    args: copyJson(record.args),
    errors: record.errors.map((error) => ({ ...error })),
    workerIds: [...record.workerIds],
  };
  return 'returnValue' in record ? { ...copy, returnValue: copyJson(record.returnValue) } : copy;
}
