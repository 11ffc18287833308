// The JSON the dashboard's HTTP API answers with (dates are ISO strings).

export type Segment = 'ready' | 'running' | 'deferred' | 'successful' | 'failed' | 'cancelled';

export const SEGMENTS: readonly Segment[] = [
  'ready',
  'running',
  'deferred',
  'successful',
  'failed',
  'cancelled',
];

export type TaskStatus = 'READY' | 'RUNNING' | 'SUCCESSFUL' | 'FAILED' | 'CANCELLED';

export interface BackendAlias {
  alias: string;
  kind: 'redis' | 'sqlite' | 'memory';
}

export interface Meta {
  aliases: BackendAlias[];
  /** Whether this viewer may act (retry, cancel, pause...). */
  canAct: boolean;
  refreshMs: number;
  csrfHeader: string;
}

export type QueueCounts = Record<Segment, number>;

export interface QueueRates {
  intervalMs: number;
  ingress: number;
  egress: number;
  failed: number;
}

export interface QueueLimits {
  concurrency?: number;
  rateLimit?: { max: number; perMs: number };
}

export interface QueueOverview {
  name: string;
  counts: QueueCounts;
  rates: QueueRates;
  paused: boolean;
  limits: QueueLimits | null;
}

export interface Overview {
  alias: string;
  at: string;
  queues: QueueOverview[];
}

export interface QueueActivity {
  enqueued: number[];
  successful: number[];
  failed: number[];
  cancelled: number[];
  waitMs: (number | null)[];
  runMs: (number | null)[];
}

export interface Activity {
  start: string;
  bucketMs: number;
  queues: Record<string, QueueActivity>;
}

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

export interface PoolStatus {
  id: string;
  host: string;
  pid: number;
  children: number;
  slots: number;
  queues: string[];
  startedAt: string;
  beatAt: string;
  expiresAt: string;
  alive: boolean;
  held: number;
}

export function isRedacted(value: unknown): value is Redacted {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { redacted?: unknown }).redacted === true &&
    Object.keys(value).length === 1
  );
}
