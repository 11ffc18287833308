import type { TaskErrorRecord, TaskRecord } from '../core/task-record.interface';
import { traceIdOf } from '../core/trace-id';
import type { Redacted, TaskDetail, TaskSummary } from './dashboard-api.interface';
import type { DashboardTaskPart } from './dashboard-options.interface';

const REDACTED: Redacted = { redacted: true };

const iso = (date: Date | null): string | undefined => date?.toISOString();

/** The first line of a stored traceback: `Class: message`. */
const messageOf = (error: TaskErrorRecord): string => error.traceback.split('\n', 1)[0] ?? '';

export function taskSummary(
  record: TaskRecord,
  hidden: ReadonlySet<DashboardTaskPart>,
): TaskSummary {
  const last = record.errors[record.errors.length - 1];
  const summary: TaskSummary = {
    id: record.id,
    name: record.task.name,
    queue: record.task.queue,
    status: record.status,
    priority: record.task.priority,
    attempts: record.workerIds.length,
    enqueuedAt: record.enqueuedAt.toISOString(),
    startedAt: iso(record.startedAt),
    finishedAt: iso(record.finishedAt),
    runAfter: iso(record.task.runAfter),
  };
  if (record.progress !== undefined) summary.progress = record.progress;
  if (last !== undefined) summary.lastError = hidden.has('errors') ? REDACTED : messageOf(last);
  return summary;
}

export function taskDetail(record: TaskRecord, hidden: ReadonlySet<DashboardTaskPart>): TaskDetail {
  const errors = record.errors.map((error) => ({
    name: error.className,
    message: messageOf(error),
    stack: error.traceback,
  }));
  const attempts = record.workerIds.length;
  const { schedule } = record.task;
  const detail: TaskDetail = {
    ...taskSummary(record, hidden),
    args: hidden.has('args') ? REDACTED : record.args,
    errors: hidden.has('errors') ? REDACTED : errors,
    workerIds: record.workerIds,
    traceId: traceIdOf(record.task.traceContext),
    schedule: schedule && { id: schedule.id, tickAt: schedule.tickAt.toISOString() },
    timeline: record.workerIds.map((workerId, index) => ({
      attempt: index + 1,
      workerId,
      at: index === attempts - 1 ? iso(record.startedAt) : undefined,
      error: hidden.has('errors') ? undefined : record.errors[index]?.className,
    })),
  };
  if (record.returnValue !== undefined) {
    detail.result = hidden.has('result') ? REDACTED : record.returnValue;
  }
  return detail;
}
