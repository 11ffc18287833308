import type { QueueCounts, QueueRates } from '../core/backend-telemetry.interface';
import type { QueueSegment } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';

/**
 * Pure text functions of the inspector: everything it shows is computed here
 * from plain data, so it is unit-tested without a terminal and the Ink layer
 * (inspector.app.ts) only arranges these strings in boxes.
 *
 * @internal
 */

/** The tabs in key order: `1` is Running ... `5` is Failed. */
export const INSPECTOR_TABS: readonly { segment: QueueSegment; title: string }[] = [
  { segment: 'running', title: 'Running' },
  { segment: 'ready', title: 'Ready' },
  { segment: 'deferred', title: 'Deferred' },
  { segment: 'successful', title: 'Successful' },
  { segment: 'failed', title: 'Failed' },
];

/** Shown for a time or value that is not set. */
export const EMPTY_CELL = '-';
const ELLIPSIS = '…';

const UNITS: readonly { size: number; suffix: string }[] = [
  { size: 1e9, suffix: 'B' },
  { size: 1e6, suffix: 'M' },
  { size: 1e3, suffix: 'k' },
];

/**
 * A count in at most four characters: `999`, `1.2k`, `12k`, `1.2M`. Rounds
 * down, so a count never looks bigger than it is (999,999 is `999k`, not `1000k`).
 */
export function abbreviateCount(count: number): string {
  const n = Math.max(0, Math.floor(count));
  for (const { size, suffix } of UNITS) {
    if (n < size) continue;
    const scaled = n / size;
    if (scaled >= 10) {
      return `${Math.floor(scaled)}${suffix}`;
    }
    const tenths = Math.floor(scaled * 10) / 10;
    return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)}${suffix}`;
  }
  return String(n);
}

/** `12s ago`, `5m ago`, `3h ago`, `2d ago`, or `in 5m` for a future time; `-` when unset. */
export function relativeTime(date: Date | null, now: Date): string {
  if (date === null) return EMPTY_CELL;
  const deltaMs = now.getTime() - date.getTime();
  const seconds = Math.floor(Math.abs(deltaMs) / 1000);
  if (seconds < 1) return 'now';
  const amount =
    seconds < 60
      ? `${seconds}s`
      : seconds < 3600
        ? `${Math.floor(seconds / 60)}m`
        : seconds < 86_400
          ? `${Math.floor(seconds / 3600)}h`
          : `${Math.floor(seconds / 86_400)}d`;
  return deltaMs >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** Cut `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width === 1 ? ELLIPSIS : `${text.slice(0, width - 1)}${ELLIPSIS}`;
}

/**
 * `text` word-wrapped into at most `maxLines` lines of at most `width`
 * characters; what does not fit ends the last line with an ellipsis. A word
 * longer than a line is cut across lines.
 */
export function wrapLines(text: string, width: number, maxLines: number): string[] {
  if (width <= 0 || maxLines <= 0) return [];
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    const longer = line === '' ? word : `${line} ${word}`;
    if (longer.length <= width) {
      line = longer;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = word;
    for (; rest.length > width; rest = rest.slice(width)) lines.push(rest.slice(0, width));
    line = rest;
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = truncate(`${kept[maxLines - 1]} ${lines[maxLines]}`, width);
  return kept;
}

/** `text` cut or padded to exactly `width` characters. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cut = truncate(text.replace(/\s+/g, ' '), width);
  return align === 'right' ? cut.padStart(width) : cut.padEnd(width);
}

/** One column of the task table. */
export interface TaskColumn {
  readonly title: string;
  /** Narrowest useful width. */
  readonly minWidth: number;
  /** Width it grows to while there is room for every column's preferred width. */
  readonly preferredWidth: number;
  /** Takes whatever width is left once every column has its preferred width. */
  readonly flexible: boolean;
  /** Lower is dropped first when the terminal is too narrow. */
  readonly keep: number;
  readonly align: 'left' | 'right';
  cell(record: TaskRecord, now: Date): string;
}

/** A column with the width it was given. */
export interface FittedColumn extends TaskColumn {
  readonly width: number;
}

const COLUMN_GAP = 2;

const idColumn: TaskColumn = {
  title: 'ID',
  minWidth: 8,
  preferredWidth: 36,
  flexible: false,
  keep: 90,
  align: 'left',
  cell: (r) => r.id,
};
const taskColumn: TaskColumn = {
  title: 'TASK',
  minWidth: 12,
  preferredWidth: 32,
  flexible: true,
  // The name says what a task is; a cut id still tells rows apart.
  keep: 100,
  align: 'left',
  cell: (r) => r.task.name,
};
const priorityColumn: TaskColumn = {
  title: 'PRIORITY',
  minWidth: 8,
  preferredWidth: 8,
  flexible: false,
  keep: 40,
  align: 'right',
  cell: (r) => String(r.task.priority),
};
const timeColumn = (
  title: string,
  keep: number,
  pick: (r: TaskRecord) => Date | null,
): TaskColumn => ({
  title,
  minWidth: 9,
  preferredWidth: 10,
  flexible: false,
  keep,
  align: 'right',
  cell: (r, now) => relativeTime(pick(r), now),
});
const workersColumn: TaskColumn = {
  title: 'WORKERS',
  minWidth: 10,
  preferredWidth: 24,
  flexible: false,
  keep: 30,
  align: 'left',
  // The most recent worker first: it is the one that ran (or runs) the task now.
  cell: (r) => (r.workerIds.length === 0 ? EMPTY_CELL : [...r.workerIds].reverse().join(', ')),
};
const attemptsColumn: TaskColumn = {
  title: 'ATTEMPTS',
  minWidth: 8,
  preferredWidth: 8,
  flexible: false,
  keep: 20,
  align: 'right',
  cell: (r) => String(r.workerIds.length),
};
const errorColumn: TaskColumn = {
  title: 'ERROR',
  minWidth: 12,
  preferredWidth: 28,
  flexible: false,
  keep: 60,
  align: 'left',
  cell: (r) => r.errors.at(-1)?.className ?? EMPTY_CELL,
};

/** The columns each tab shows, in display order. */
export const TAB_COLUMNS: Readonly<Record<QueueSegment, readonly TaskColumn[]>> = {
  running: [
    idColumn,
    taskColumn,
    priorityColumn,
    timeColumn('STARTED', 70, (r) => r.startedAt),
    attemptsColumn,
    workersColumn,
  ],
  ready: [
    idColumn,
    taskColumn,
    priorityColumn,
    timeColumn('ENQUEUED', 70, (r) => r.enqueuedAt),
    attemptsColumn,
  ],
  deferred: [
    idColumn,
    taskColumn,
    timeColumn('RUN AFTER', 80, (r) => r.task.runAfter),
    priorityColumn,
    timeColumn('ENQUEUED', 20, (r) => r.enqueuedAt),
  ],
  successful: [
    idColumn,
    taskColumn,
    timeColumn('FINISHED', 70, (r) => r.finishedAt),
    attemptsColumn,
    workersColumn,
  ],
  failed: [
    idColumn,
    taskColumn,
    timeColumn('FINISHED', 70, (r) => r.finishedAt),
    errorColumn,
    attemptsColumn,
    workersColumn,
  ],
};

/**
 * The tab's columns fitted to `width` characters: the least important are
 * dropped until the minimum widths fit; the spare width then goes to each
 * column up to its preferred width, most important first (a readable task
 * name, then a whole id, before a long worker list), and what is left to the
 * flexible task name. Given the rows on screen, a column never grows past its
 * widest cell, so short task names leave room for whole ids.
 */
export function fitColumns(
  segment: QueueSegment,
  width: number,
  rows?: { records: readonly TaskRecord[]; now: Date },
): FittedColumn[] {
  let chosen = [...TAB_COLUMNS[segment]];
  const needed = (cols: readonly TaskColumn[]): number =>
    cols.reduce((sum, c) => sum + c.minWidth, 0) + COLUMN_GAP * Math.max(0, cols.length - 1);
  while (chosen.length > 1 && needed(chosen) > width) {
    const weakest = chosen.reduce((a, b) => (b.keep < a.keep ? b : a));
    chosen = chosen.filter((c) => c !== weakest);
  }
  const preferred = (column: TaskColumn): number => {
    if (rows === undefined || rows.records.length === 0) return column.preferredWidth;
    const widest = Math.max(
      column.title.length,
      ...rows.records.map((r) => column.cell(r, rows.now).length),
    );
    return Math.min(column.preferredWidth, widest);
  };
  const widths = new Map(chosen.map((c) => [c, c.minWidth]));
  let spare = width - needed(chosen);
  for (const column of [...chosen].sort((a, b) => b.keep - a.keep)) {
    const grow = Math.max(0, Math.min(spare, preferred(column) - column.minWidth));
    widths.set(column, column.minWidth + grow);
    spare -= grow;
  }
  const flexible = chosen.find((c) => c.flexible) ?? chosen[0];
  if (spare > 0) widths.set(flexible, (widths.get(flexible) ?? 0) + spare);
  // A single column narrower than its minimum still fills exactly the width.
  if (chosen.length === 1) widths.set(flexible, Math.max(1, width));
  return chosen.map((c) => ({ ...c, width: widths.get(c) ?? c.minWidth }));
}

const joinCells = (cells: readonly string[]): string => cells.join(' '.repeat(COLUMN_GAP));

/** The header line of the task table. */
export function tableHeader(columns: readonly FittedColumn[]): string {
  return joinCells(columns.map((c) => fit(c.title, c.width, c.align)));
}

/** One task as a table line. */
export function tableRow(columns: readonly FittedColumn[], record: TaskRecord, now: Date): string {
  return joinCells(columns.map((c) => fit(c.cell(record, now), c.width, c.align)));
}

/** `Ready 1.2k`: a tab's title with its abbreviated count (`?` while unknown). */
export function tabLabel(index: number, segment: QueueSegment, counts: QueueCounts | null): string {
  const tab = INSPECTOR_TABS[index];
  const count = counts === null ? '?' : abbreviateCount(counts[segment]);
  return `${index + 1} ${tab?.title ?? segment} ${count}`;
}

/** The selected queue's throughput over the telemetry window: `last 2 s: 12 in, 10 out (1 failed)`. */
export function ratesLine(rates: QueueRates): string {
  const seconds = Math.round(rates.intervalMs / 100) / 10;
  return (
    `last ${seconds} s: ${abbreviateCount(rates.ingress)} in, ` +
    `${abbreviateCount(rates.egress)} out (${abbreviateCount(rates.failed)} failed)`
  );
}

/** A queue in the queue list: its name and how many tasks wait and run, in `width` characters. */
export function queueLine(name: string, counts: QueueCounts | undefined, width: number): string {
  const summary =
    counts === undefined
      ? '?'
      : `${abbreviateCount(counts.ready)} ▸ ${abbreviateCount(counts.running)}`;
  const nameWidth = Math.max(1, width - summary.length - 1);
  return `${fit(name, nameWidth)} ${summary}`.slice(0, Math.max(width, 0));
}

/** The first visible row so that `selected` stays within a window of `height` rows. */
export function scrollOffset(
  selected: number,
  previousOffset: number,
  height: number,
  total: number,
): number {
  if (height <= 0 || total <= height) return 0;
  let offset = Math.min(previousOffset, total - height);
  if (selected < offset) offset = selected;
  if (selected >= offset + height) offset = selected - height + 1;
  return Math.max(0, offset);
}

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
  field('runAfter', timeValue(record.task.runAfter, now));
  field('enqueuedAt', timeValue(record.enqueuedAt, now));
  field('startedAt', timeValue(record.startedAt, now));
  field('lastAttemptedAt', timeValue(record.lastAttemptedAt, now));
  field('finishedAt', timeValue(record.finishedAt, now));
  field('attempts', String(record.workerIds.length));
  field('workerIds', record.workerIds.length === 0 ? EMPTY_CELL : [...record.workerIds]);
  field('args', jsonLines(record.args));
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
