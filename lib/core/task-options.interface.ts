import type { AliasOption } from './alias-option.interface';
import type { TaskSchedule } from './schedule-options.interface';
import type { TaskTransaction } from './task-transaction';
import type { UniqueMode } from './unique-key';

/**
 * How long a failed task waits before its next attempt.
 *
 * - `fixed`: every retry waits `delayMs`.
 * - `exponential`: retry n (1 = the first retry) waits `delayMs * 2^(n-1)`.
 *
 * Either way the wait is capped at `maxDelayMs` and, with `jitter`, drawn
 * uniformly from [wait / 2, wait], so tasks that failed together do not all
 * come back in the same instant.
 *
 * @publicApi
 */
export interface TaskBackoff {
  type: 'fixed' | 'exponential';
  /** The first retry's wait (ms), a whole number from 0 to 7 days. */
  delayMs: number;
  /** Longest wait (ms), at least `delayMs`. Default: 1 hour (or `delayMs` when larger). */
  maxDelayMs?: number;
  /** Draw each wait from [wait / 2, wait]. Default: true. */
  jitter?: boolean;
}

/**
 * Per-call unique options (`using({ key, unique })`): they replace the
 * task's `unique.mode` and `unique.ttlMs` for this call.
 *
 * @publicApi
 */
export interface UniqueOverrides {
  /** Default: the task's, else `'unfinished'`. */
  mode?: UniqueMode;
  /** The window or debounce wait (ms, a whole number from 1 to 1 year); required by both. */
  ttlMs?: number;
}

/**
 * A task's unique key, derived from each enqueue's arguments (`@Task({ unique })`).
 *
 * @publicApi
 */
export interface TaskUniqueOptions extends UniqueOverrides {
  /**
   * The key of an enqueue, from its arguments: 1-200 letters, digits, `-`,
   * `_`, `.` or `:`. A call's `using({ key })` replaces it.
   */
  key: (...args: never[]) => string;
}

/**
 * Options of `@Task()`.
 *
 * @publicApi
 */
export interface TaskOptions extends AliasOption {
  /** Stable name stored with every enqueued task. Default: `ClassName.methodName`. */
  name?: string;
  /** Queue the task is enqueued on. Default: `'default'`. */
  queue?: string;
  /** Whole number from -100 to 100; higher runs first. Default: 0. */
  priority?: number;
  /** When true, the method receives a `TaskContext` as its first argument. */
  takesContext?: boolean;
  /**
   * How many times a failed attempt is tried again (whole number, 0 to 100).
   * A throw, a crashed worker, a lost pool and an ended lease each use one.
   * Default: 0 (a failed attempt fails the task).
   */
  retries?: number;
  /** Wait between attempts. Default: exponential from 1 s, at most 1 hour, with jitter. */
  backoff?: TaskBackoff;
  /**
   * Longest this task may hold its process's event loop without a break (ms,
   * a whole number): synchronous, CPU-bound work. The pool kills and replaces
   * a child whose event loop does not answer for its liveness timeout (30 s
   * by default); while this task runs, that child is given this long instead.
   * Never more than the backend's lease, past which the task is failed anyway.
   * Default: none (the pool's liveness timeout).
   */
  blockingMs?: number;
  /**
   * Longest one attempt may run (ms, a whole number above 0, below the
   * backend's lease). At the deadline the attempt's `TaskContext.signal`
   * aborts with a `TaskTimeoutError` reason and the attempt fails with that
   * error (retried per `retries`), whatever the method does afterwards. A
   * task that never looks at the signal keeps its slot until it returns.
   * Default: none (the lease is the only limit).
   */
  timeoutMs?: number;
  /**
   * What a cancel of a running attempt may do beyond aborting its signal.
   * `hardStopAfterMs`: if the attempt still runs this long (ms, a whole
   * number above 0) after its signal aborted, the pool kills its child on
   * purpose and starts another; the attempt ends CANCELLED and the other
   * tasks that child held go back to their queue (released, never failed).
   * Default: none (a task that ignores its signal runs to its end).
   */
  cancel?: { hardStopAfterMs: number };
  /**
   * Runs the task on a schedule (cron or a fixed interval), once per tick
   * across every worker pool; several as an array. See docs/schedules.md.
   */
  schedule?: TaskSchedule | readonly TaskSchedule[];
  /**
   * Dedupe enqueues by a key derived from the arguments: while the key is
   * held, an enqueue returns the task that holds it (see UniqueMode).
   * Default: none (every enqueue makes a task).
   */
  unique?: TaskUniqueOptions;
}

/**
 * Per-call overrides of a task's options (`handle.using(...)`).
 *
 * @publicApi
 */
export interface TaskOverrides extends AliasOption {
  priority?: number;
  queue?: string;
  /**
   * Earliest time the task may run, on this process's clock; needs a backend
   * that supports deferral. The task waits as long as is left of it when the
   * enqueue is sent, counted on the store's clock, so a host whose clock is
   * off neither runs it early nor holds it back.
   */
  runAfter?: Date;
  /**
   * How long after the enqueue the task may run (ms, a whole number from 0
   * to MAX_DELAY_MS, 1 year), counted on the store's clock; instead of
   * `runAfter` (not both), and like it only on a backend that supports
   * deferral. The stored record's `runAfter` shows it as this process's
   * estimate (now + delayMs).
   */
  delayMs?: number;
  /** Replaces the task's `retries` for this call. */
  retries?: number;
  /** Replaces the task's `backoff` for this call. */
  backoff?: TaskBackoff;
  /** Replaces the task's `timeoutMs` for this call. */
  timeoutMs?: number;
  /**
   * The task's id, instead of a new UUID: 1-200 letters, digits, `-`, `_`,
   * `.` or `:`. An id that is already stored (waiting, running, or finished
   * within resultTtl) is refused with TaskAlreadyExistsError, which carries
   * the stored task, so an enqueue retried after EnqueueOutcomeUnknownError
   * never makes a second task. Names one task: `enqueueMany` with more than
   * one argument list refuses it (InvalidTaskError).
   */
  id?: string;
  /**
   * A unique key for this enqueue (the charset and length of `id`): while a
   * task with this key holds it (see UniqueMode), the enqueue returns that
   * task instead of making one (`created` is false). Replaces a key the
   * task derives from its arguments. In `enqueueMany` each argument list
   * gets it, as if they were enqueued one by one.
   */
  key?: string;
  /** Mode and ttlMs of the key for this call. */
  unique?: UniqueOverrides;
  /**
   * The app's open transaction (an adapter of `@threadmill/nestjs/postgres`
   * over its ORM's handle): the tasks are written in it, so they exist only
   * if it commits, and no worker sees them before. The ids are known at
   * once. Needs a PostgresBackend whose tables are in the app's database
   * (TransactionNotSupportedError otherwise). All or none, whatever the
   * number of argument lists.
   */
  transaction?: TaskTransaction;
}
