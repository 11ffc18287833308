// What the dashboard's HTTP API answers with, as the server builds it. Types
// only, importing nothing that needs Node or Nest: the page (lib/dashboard/ui)
// imports them too, so the two cannot drift apart.
import type { QueueCounts, QueueRates } from '../core/backend-telemetry.interface';
import type { QueueLimits } from '../core/queue-limits';
import type { TaskResultStatus } from '../core/task-result-status.enum';

/** Which store an alias keeps its tasks in, as the page names it. */
export type BackendKind = 'redis' | 'sqlite' | 'postgres' | 'memory' | 'other';

/** What the page learns first: the aliases, whether it may act, how often it refreshes. */
export interface DashboardMeta {
  aliases: { alias: string; kind: BackendKind }[];
  /** Whether this viewer may act (retry, cancel, pause...). */
  canAct: boolean;
  refreshMs: number;
  csrfHeader: string;
}

/** One queue as the overview shows it. */
export interface OverviewQueue {
  name: string;
  counts: QueueCounts;
  rates: QueueRates;
  paused: boolean;
  limits: QueueLimits | null;
}

/** Every queue of one alias at one moment. */
export interface Overview {
  alias: string;
  /** When it was read (ISO). */
  at: string;
  queues: OverviewQueue[];
}

/** What the page shows in place of a part `redact` hides. */
export interface Redacted {
  redacted: true;
}

/** One task in a list (dates as ISO strings). */
export interface TaskSummary {
  id: string;
  name: string;
  queue: string;
  status: TaskResultStatus;
  priority: number;
  attempts: number;
  enqueuedAt: string;
  startedAt?: string;
  finishedAt?: string;
  runAfter?: string;
  progress?: unknown;
  /** The last error's message (its first line), or Redacted. */
  lastError?: string | Redacted;
}

/** One page of a task list; `next` is the cursor of the page after it, null at the end. */
export interface TaskListPage {
  tasks: TaskSummary[];
  next: string | null;
}

/** One failed attempt: the error's class, its message and its stack. */
export interface TaskErrorView {
  name: string;
  message: string;
  stack: string;
}

/** One attempt as the timeline shows it. */
export interface TaskAttemptView {
  attempt: number;
  workerId: string;
  /** When it started: known for the last attempt only. */
  at?: string;
  /** The class name of the error that ended it, when one did (attempts and errors paired in order). */
  error?: string;
}

/** One task in full. */
export interface TaskDetail extends TaskSummary {
  args: readonly unknown[] | Redacted;
  result?: unknown;
  errors: TaskErrorView[] | Redacted;
  workerIds: readonly string[];
  traceId?: string;
  schedule?: { id: string; tickAt: string };
  timeline: TaskAttemptView[];
}
