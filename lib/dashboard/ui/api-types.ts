// The JSON the dashboard's HTTP API answers with. The shapes are the server's
// own types, imported as types only (esbuild drops them from the bundle), read
// through Json<> where they hold dates.
import type { QueueSegment } from '../../core/task-backend.interface';
import type { BackendActivity, PoolStatus as StoredPoolStatus } from '../../core/task-listing';
import type { TaskResultStatus } from '../../core/task-result-status.enum';

export type { QueueLimits } from '../../core/queue-limits';
export type { QueueActivity } from '../../core/task-listing';
export type {
  DashboardMeta as Meta,
  Overview,
  OverviewQueue as QueueOverview,
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

export interface TaskSummary {
  id: string;
  name: string;
  queue: string;
  status: TaskStatus;
  priority?: number;
  attempts: number;
  enqueuedAt: string;
  startedAt?: string | null;
  finishedAt?: string | null;
  runAfter?: string | null;
  progress?: unknown;
  /** The last error's message, or Redacted. */
  lastError?: string | Redacted | null;
}

export interface TaskPage {
  tasks: TaskSummary[];
  next: string | null;
}

/** What stands for a field the redact option hides. */
export interface Redacted {
  redacted: true;
}

export interface TaskError {
  /** The error's class name. */
  name?: string;
  message: string;
  stack?: string;
}

export interface TimelineEntry {
  attempt: number;
  workerId?: string | null;
  /** When it started (known for the last attempt only). */
  at?: string | null;
  /** The class name of the error that ended it, if one did. */
  error?: string | null;
}

export interface TaskDetail extends TaskSummary {
  args: unknown;
  result?: unknown;
  errors: TaskError[] | Redacted;
  workerIds: string[];
  traceId?: string | null;
  schedule?: { id: string; tickAt: string };
  timeline: TimelineEntry[];
}

export interface ScheduleInfo {
  id: string;
  task: string;
  cron?: string;
  timezone?: string;
  every?: number;
  queue?: string;
  origin: string;
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
