import type { FinishedTask } from '../../core/finished-task-feed';
import { FINISHED_STATUSES, TaskResultStatus } from '../../core/task-result-status.enum';

/**
 * The label of a group of finished tasks, as the scripts publish it with the
 * group's stored ids: `[queue, status, task name]` as JSON. Built here once
 * per group, so the script only joins strings (no JSON encoded per task).
 */
export function finishedLabel(queue: string, status: TaskResultStatus, name: string): string {
  return JSON.stringify([queue, status, name]);
}

/** A message as the scripts publish it: `[[label, [id, ...]], ...]`, for one task (cancel-5.lua). */
export function finishedMessage(label: string, id: string): string {
  return `[[${label},${JSON.stringify([id])}]]`;
}

/**
 * The tasks of one message on the finished channel; null when it is not our
 * shape (a message someone else published there), which is then ignored.
 */
export function decodeFinishedMessage(message: string): FinishedTask[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const tasks: FinishedTask[] = [];
  for (const entry of parsed as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const [label, ids] = entry as [unknown, unknown];
    if (!Array.isArray(label) || !Array.isArray(ids)) return null;
    const [queue, status, name] = label as unknown[];
    if (typeof queue !== 'string' || typeof name !== 'string') return null;
    if (!FINISHED_STATUSES.has(status as TaskResultStatus)) return null;
    for (const id of ids as unknown[]) {
      if (typeof id !== 'string') return null;
      tasks.push({ id, queue, name, status: status as TaskResultStatus });
    }
  }
  return tasks;
}
