import { ProgressThrottle } from './progress-throttle';
import type { ScheduledTick, TaskRecord } from './task-record.interface';
import type { TaskResult } from './task-result';

/**
 * Where a running attempt's progress is stored (the worker's task runner):
 * `stored` as storedProgress built it, `value` as reported. Never rejects.
 *
 * @internal
 */
export interface ProgressOutlet {
  storeProgress(record: TaskRecord, stored: string, value: unknown): Promise<void>;
}

/**
 * The running attempt of a task: passed as the first argument to a task
 * declared with `takesContext: true`, and reachable from any task's code
 * through `currentTaskContext()`.
 *
 * @publicApi
 */
export class TaskContext {
  /** Made on the first report, so a task that reports none costs nothing. */
  private throttle: ProgressThrottle | null = null;

  constructor(
    readonly taskResult: TaskResult,
    /** The attempt's signal, or what makes it when first read (AttemptControl); none: never aborts. */
    private source: AbortSignal | { readonly signal: AbortSignal } | null = null,
    private readonly outlet: ProgressOutlet | null = null,
  ) {}

  /**
   * Aborted when the attempt should stop: at its `timeoutMs` (the reason is
   * a `TaskTimeoutError`) or on a cancel (a `TaskCancelledError`). Hand it
   * to what the task awaits (`fetch`, a driver, `setTimeout` of
   * `node:timers/promises`) or check `aborted`.
   */
  get signal(): AbortSignal {
    this.source ??= new AbortController().signal;
    return this.source instanceof AbortSignal ? this.source : this.source.signal;
  }

  /** 1 on the first run, 2 on the first retry, and so on. */
  get attempt(): number {
    return this.taskResult.attempts;
  }

  /**
   * For a task a schedule enqueued: the schedule's id and the tick it runs
   * for (the time it was due, not when it started). Undefined otherwise.
   */
  get schedule(): ScheduledTick | undefined {
    return this.taskResult.task.schedule;
  }

  /**
   * Reports how far this attempt got: a number (a fraction, a count) or a
   * small JSON value (up to MAX_PROGRESS_BYTES as JSON), shown as `progress`
   * by `getResult` and the inspector, and emitted as `progressed` in this
   * process. Cheap to call as often as the work allows (a number is kept as
   * it is; another value is checked and serialized at the call): at most one
   * store write per PROGRESS_INTERVAL_MS, of the latest value, which is also
   * stored before the attempt's outcome. A retry starts without progress.
   *
   * @example
   * ```ts
   * for (const [i, row] of rows.entries()) {
   *   await importRow(row);
   *   currentTaskContext()?.progress((i + 1) / rows.length);
   * }
   * ```
   * @throws InvalidTaskProgressError when `value` is not JSON or is too large.
   */
  progress(value: unknown): void {
    (this.throttle ??= this.newThrottle()).report(value);
  }

  /**
   * Stores the progress still waiting; the runner awaits it before the
   * outcome. Null when the task reported none, so that case awaits nothing.
   * @internal
   */
  finishProgress(): Promise<void> | null {
    return this.throttle === null ? null : this.throttle.finish();
  }

  private newThrottle(): ProgressThrottle {
    const record = this.taskResult.toRecord();
    const outlet = this.outlet;
    // Without an outlet (a context built by hand, e.g. in a test) a report is checked, then dropped.
    const store = outlet
      ? (stored: string, value: unknown) => outlet.storeProgress(record, stored, value)
      : () => Promise.resolve();
    return new ProgressThrottle(record.task.name, this.attempt, store);
  }
}
