import type { QueueSegment } from '../core/queue-segment';
import type { TaskRecord } from '../core/task-record.interface';
import { EMPTY_CELL, fit, relativeTime } from './inspector-format';

/**
 * The task table as text: the columns each tab shows, how they share the
 * terminal's width, and the header and row lines they make.
 *
 * @internal
 */

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
  cancelled: [
    idColumn,
    taskColumn,
    timeColumn('FINISHED', 70, (r) => r.finishedAt),
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
