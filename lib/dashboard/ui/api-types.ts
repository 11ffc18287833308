// The JSON the dashboard's HTTP API answers with. The shapes are the server's
// own types, imported as types only (esbuild drops them from the bundle) and
// read through Json<> where dates or enum members change on the wire. Only
// SEGMENTS, ScheduleInfo and isRedacted are the page's own.
import type { ScheduleOrigin } from '../../core/ports/schedule-store.port';
import type { QueueSegment } from '../../core/queue-segment';
import type { BackendActivity, PoolStatus as StoredPoolStatus } from '../../core/task-listing';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import type {
  Redacted,
  TaskDetail as ServerTaskDetail,
  TaskListPage,
  TaskSummary as ServerTaskSummary,
} from '../dashboard-api.interface';

export type { QueueLimits } from '../../core/queue-limits';
export type { QueueActivity } from '../../core/task-listing';
export type {
  DashboardMeta as Meta,
  Overview,
  OverviewQueue as QueueOverview,
  TaskErrorView as TaskError,
} from '../dashboard-api.interface';

/** `T` as it arrives in JSON: dates as ISO strings, an enum's members as their words. */
export type Json<T> = T extends Date
  ? string
  : T extends string
    ? `${T}`
    : T extends readonly (infer Item)[]
      ? Json<Item>[]
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : T;

export type Segment = QueueSegment;

/**
 * The segments in the page's order (tabs, columns): lib/core's QUEUE_SEGMENTS,
 * restated because it is a value and the page bundles no code of lib/core.
 */
export const SEGMENTS: readonly Segment[] = [
  'ready',
  'running',
  'deferred',
  'successful',
  'failed',
  'cancelled',
];

export type TaskStatus = Json<TaskResultStatus>;

export type Activity = Json<BackendActivity>;

export type TaskSummary = Json<ServerTaskSummary>;
export type TaskPage = Json<TaskListPage>;
export type TaskDetail = Json<ServerTaskDetail>;

/**
 * The fields of a schedule the page shows. Restated, not imported: the
 * server's ScheduleInfo (lib/schedule/schedule-info.ts) shares its file with
 * code whose imports need Node's types, which the page's type check lacks.
 */
export interface ScheduleInfo {
  id: string;
  task: string;
  cron?: string;
  timezone?: string;
  every?: number;
  queue?: string;
  origin: ScheduleOrigin;
  paused: boolean;
  nextTickAt: string | null;
  lastTick: { at: string; taskId: string; status: TaskStatus | null } | null;
}

export type PoolStatus = Json<StoredPoolStatus>;

export function isRedacted(value: unknown): value is Redacted {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { redacted?: unknown }).redacted === true &&
    Object.keys(value).length === 1
  );
}
