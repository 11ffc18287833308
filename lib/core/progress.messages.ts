// Messages of task progress (TaskContext.progress), written once here.
import { shown } from './shown';

export const progressNotJson = (taskName: string, reason: string): string =>
  `Task ${shown(taskName)}: its progress ${reason}. Report a finite number or a small JSON value ` +
  `(null, booleans, finite numbers, strings, arrays and plain objects).`;

export const progressTooLarge = (taskName: string, bytes: number, max: number): string =>
  `Task ${shown(taskName)}: its progress is ${bytes} bytes as JSON, over the ${max}-byte limit. ` +
  `Report a number or a few fields (counts, a phase name); keep results for the return value.`;

export const progressNotStored = (
  tasks: readonly { id: string; task: { name: string } }[],
  reason: string,
): string =>
  `Progress of task ${shown(tasks[0].task.name)} (${tasks[0].id})` +
  (tasks.length > 1 ? ` and ${tasks.length - 1} other task(s)` : '') +
  ` was not stored: ${reason}. ` +
  `Their next report, or their outcome, brings the stored value up to date.`;
