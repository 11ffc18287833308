import type { StoredSchedule } from '../core/ports/schedule-store.port';
import type { TaskResultStatus } from '../core/task-result-status.enum';
import { parseDefinition } from '../schedule/schedule-definition';
import { EMPTY_CELL, fit, relativeTime } from './inspector-format';

/**
 * The inspector's Schedules view as plain data and text: one row per stored
 * schedule, with its next tick, last tick and the last tick's task status.
 *
 * @internal
 */

/** One schedule as the Schedules view shows it. */
export interface InspectorScheduleRow {
  readonly id: string;
  readonly task: string;
  /** `30 2 * * * Europe/Berlin` or `every 60s`. */
  readonly when: string;
  readonly paused: boolean;
  readonly nextTickAt: Date | null;
  readonly lastTickAt: Date | null;
  readonly lastTaskId: string | null;
  /** The last tick's task status; `expired` once its result is gone; null before a tick. */
  readonly lastStatus: TaskResultStatus | 'expired' | null;
}

/** A stored schedule as a row; `lastStatus` read from its last tick's task. */
export function scheduleRow(
  stored: StoredSchedule,
  lastStatus: InspectorScheduleRow['lastStatus'],
): InspectorScheduleRow {
  const definition = parseDefinition(stored.definition);
  const rule = definition?.rule;
  const when =
    rule === undefined
      ? '(unreadable)'
      : 'cron' in rule
        ? `${rule.cron} ${rule.timezone}`
        : `every ${rule.every >= 1000 && rule.every % 1000 === 0 ? `${rule.every / 1000}s` : `${rule.every}ms`}`;
  return {
    id: stored.id,
    task: definition?.task ?? '(unreadable)',
    when,
    paused: stored.paused,
    nextTickAt: stored.nextTickMs === null ? null : new Date(stored.nextTickMs),
    lastTickAt: stored.lastTick === null ? null : new Date(stored.lastTick.tickMs),
    lastTaskId: stored.lastTick?.taskId ?? null,
    lastStatus,
  };
}

interface ScheduleColumn {
  readonly title: string;
  readonly width: number;
  readonly cell: (row: InspectorScheduleRow, now: Date) => string;
}

const COLUMN_GAP = 2;

/** The columns in screen order; `id` takes what the others leave. */
const COLUMNS: readonly ScheduleColumn[] = [
  { title: 'Schedule', width: 0, cell: (row) => row.id },
  { title: 'Task', width: 20, cell: (row) => row.task },
  { title: 'When', width: 26, cell: (row) => row.when },
  {
    title: 'Next tick',
    width: 10,
    cell: (row, now) => (row.paused ? 'paused' : relativeTime(row.nextTickAt, now)),
  },
  { title: 'Last tick', width: 10, cell: (row, now) => relativeTime(row.lastTickAt, now) },
  { title: 'Last status', width: 11, cell: (row) => row.lastStatus ?? EMPTY_CELL },
];

/** The columns a narrow screen drops first, in that order. */
const DROPPED_FIRST = ['Task', 'When', 'Last tick'];
/** The narrowest the schedule id column gets before another column is dropped. */
const MIN_ID_WIDTH = 12;

/** The columns that fit `width`, each with its width; the id column takes what is left. */
function fittedColumns(width: number): { column: ScheduleColumn; width: number }[] {
  let kept = COLUMNS.slice(1);
  const used = (): number => kept.reduce((sum, c) => sum + c.width + COLUMN_GAP, 0);
  for (const title of DROPPED_FIRST) {
    if (width - used() >= MIN_ID_WIDTH) break;
    kept = kept.filter((column) => column.title !== title);
  }
  return [
    { column: COLUMNS[0], width: Math.max(1, width - used()) },
    ...kept.map((column) => ({ column, width: column.width })),
  ];
}

/** The header line of the Schedules view, `width` characters wide. */
export function scheduleHeader(width: number): string {
  return fittedColumns(width)
    .map(({ column, width: w }) => fit(column.title, w))
    .join(' '.repeat(COLUMN_GAP));
}

/** One schedule's line, `width` characters wide. */
export function scheduleLine(row: InspectorScheduleRow, now: Date, width: number): string {
  return fittedColumns(width)
    .map(({ column, width: w }) => fit(column.cell(row, now), w))
    .join(' '.repeat(COLUMN_GAP));
}
