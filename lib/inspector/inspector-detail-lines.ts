import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { EMPTY_CELL, relativeTime } from './inspector-format';

/**
 * The detail pane as text: every field of one task, then its errors, each
 * line tagged with how it is drawn.
 *
 * @internal
 */

/** How a detail line is drawn. */
export type DetailTone = 'field' | 'heading' | 'error' | 'stack';

export interface DetailLine {
  readonly text: string;
  readonly tone: DetailTone;
}

const LABEL_WIDTH = 16;

const timeValue = (date: Date | null, now: Date): string =>
  date === null ? EMPTY_CELL : `${date.toISOString()} (${relativeTime(date, now)})`;

const jsonLines = (value: unknown): string[] => {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  return text.split('\n');
};

/**
 * Every field of a task, one per line (multi-line values continue indented),
 * then each error: its class name and its full stack, as stored.
 */
export function detailLines(record: TaskRecord, now: Date): DetailLine[] {
  const lines: DetailLine[] = [];
  const field = (label: string, value: string | string[]): void => {
    const [first = '', ...rest] = Array.isArray(value) ? value : [value];
    lines.push({ text: `${label.padEnd(LABEL_WIDTH)}${first}`, tone: 'field' });
    for (const more of rest)
      lines.push({ text: `${' '.repeat(LABEL_WIDTH)}${more}`, tone: 'field' });
  };
  field('id', record.id);
  field('status', record.status);
  field('task', record.task.name);
  field('queue', record.task.queue);
  field('priority', String(record.task.priority));
  field('backend', record.task.backend);
  const { unique } = record.task;
  if (unique) {
    const ttl = unique.ttlMs === undefined ? '' : `, ${unique.ttlMs} ms`;
    field('unique key', `${unique.key} (${unique.mode}${ttl})`);
  }
  field('runAfter', timeValue(record.task.runAfter, now));
  field('enqueuedAt', timeValue(record.enqueuedAt, now));
  field('startedAt', timeValue(record.startedAt, now));
  field('lastAttemptedAt', timeValue(record.lastAttemptedAt, now));
  field('finishedAt', timeValue(record.finishedAt, now));
  field('attempts', String(record.workerIds.length));
  field('workerIds', record.workerIds.length === 0 ? EMPTY_CELL : [...record.workerIds]);
  field('args', jsonLines(record.args));
  // Only a task that reported progress shows the line: most never do.
  if (record.progress !== undefined) field('progress', jsonLines(record.progress));
  if (record.status === TaskResultStatus.SUCCESSFUL) {
    field('returnValue', jsonLines(record.returnValue ?? null));
  }
  field('errors', String(record.errors.length));
  record.errors.forEach((error, i) => {
    lines.push({ text: `#${i + 1} ${error.className}`, tone: 'error' });
    for (const line of error.traceback.split('\n')) {
      lines.push({ text: `  ${line}`, tone: 'stack' });
    }
  });
  return lines;
}
