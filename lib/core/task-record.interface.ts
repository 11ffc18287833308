import type { TaskBackoff } from './task-options.interface';
import type { TaskResultStatus } from './task-result-status.enum';
import type { TaskUniqueness } from './unique-key';

/** What a task was enqueued as: resolved options, fixed at enqueue. */
export interface TaskDescriptor {
  readonly name: string;
  readonly queue: string;
  readonly priority: number;
  /**
   * Earliest time the task may run. A retry moves it to when the next attempt
   * is due, so the deferred segment and the inspector show the wait.
   */
  readonly runAfter: Date | null;
  readonly backend: string;
  /** Retries allowed after the first attempt; absent means 0 (records stored before retries existed). */
  readonly retries?: number;
  /** Wait between attempts; absent means the default backoff. */
  readonly backoff?: TaskBackoff;
  /** Longest one attempt may run (ms); absent means no limit but the lease. */
  readonly timeoutMs?: number;
  /** The schedule and tick that enqueued the task; absent for a task enqueued otherwise. */
  readonly schedule?: ScheduledTick;
  /** Its unique key, mode and ttl; absent for a task without a key (nothing extra stored). */
  readonly unique?: TaskUniqueness;
  /**
   * The W3C trace context of the span that enqueued it, so each attempt's
   * span continues that trace; absent when it was enqueued outside a trace
   * (nothing extra stored). Part of the descriptor, so retries keep it.
   */
  readonly traceContext?: TaskTraceContext;
  /**
   * When a worker that registers no task of this name first put it back
   * (unknownTaskUnleased); absent for every task a worker knew.
   */
  readonly unknownSince?: Date;
}

/**
 * A W3C trace context as stored with a task: the `traceparent` and
 * `tracestate` header values of the span that enqueued it.
 *
 * @publicApi
 */
export interface TaskTraceContext {
  /** `00-<trace id>-<parent span id>-<flags>`. */
  readonly traceparent: string;
  /** Vendor entries; absent when the span had none. */
  readonly tracestate?: string;
}

/** Which schedule enqueued a task, and for which tick. */
export interface ScheduledTick {
  readonly id: string;
  /** The tick's time (the store's clock), or when it was triggered by hand. */
  readonly tickAt: Date;
}

/** One failed attempt: the thrown value's class name and its stack text. */
export interface TaskErrorRecord {
  readonly className: string;
  readonly traceback: string;
}

/**
 * The stored state of one task: what backends persist and return. Plain data
 * (Dates, not strings), so the task layer can wrap it without reparsing.
 */
export interface TaskRecord {
  readonly id: string;
  readonly task: TaskDescriptor;
  readonly status: TaskResultStatus;
  readonly enqueuedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly lastAttemptedAt: Date | null;
  readonly args: readonly unknown[];
  readonly errors: readonly TaskErrorRecord[];
  readonly workerIds: readonly string[];
  /** Present only when the status is SUCCESSFUL (JSON-normalized: `undefined` became `null`). */
  readonly returnValue?: unknown;
  /**
   * The latest value the current attempt reported through
   * `TaskContext.progress`, as it was stored; absent when it reported none
   * (a new attempt starts without). Stored beside the record, so a copy made
   * with recordWith leaves it out.
   */
  readonly progress?: unknown;
  /**
   * When a cancel was asked of this task while it was leased: the attempt
   * under way ends CANCELLED, and no later lease starts it. Absent when no
   * cancel is pending (a retry by hand starts without one).
   */
  readonly cancelRequestedAt?: Date;
}
