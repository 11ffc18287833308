import { AttemptProgress } from './attempt-progress';
import type { ProgressBatcher } from './progress-batcher';
import { attemptOutcome } from './attempt-outcome';
import type { ScheduledTick, TaskRecord } from './task-record.interface';
import type { TaskResult } from './task-result';

/**
 * The running attempt of a task: passed as the first argument to a task
 * declared with `takesContext: true`, and reachable from any task's code
 * through `currentTaskContext()`.
 *
 * @publicApi
 */
export class TaskContext {
  /** Made on the first report, so a task that reports none costs nothing. */
  private reports: AttemptProgress | null = null;

  constructor(
    readonly taskResult: TaskResult,
    /** The attempt's signal, or what makes it when first read (AttemptControl); none: never aborts. */
    private source: AbortSignal | { readonly signal: AbortSignal } | null = null,
    /** Where its progress is written (the runner's); none: a report is checked, then only kept for the outcome. */
    private readonly batcher: ProgressBatcher | null = null,
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
   * store write per PROGRESS_INTERVAL_MS, of the latest value, shared with
   * the other tasks this process runs; the last value is stored with the
   * attempt's outcome. A retry starts without progress.
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
    if (this.reports === null) {
      const record = this.taskResult.toRecord();
      this.reports = this.batcher?.attempt(record) ?? new AttemptProgress(record, null);
    }
    this.reports.report(value);
  }

  /**
   * Ends the attempt's progress once `finished` (its outcome) is decided,
   * and returns the record to store: `finished` carrying the last value
   * reported, which the backend stores with the outcome in the same step;
   * for a failed attempt going back for a retry (whose next attempt starts
   * without progress), `finished` as it is, once that value is written on
   * its own. Null when the task reported none, so that case awaits nothing.
   * @internal
   */
  endProgress(finished: TaskRecord): Promise<TaskRecord> | null {
    const reports = this.reports;
    if (reports === null) return null;
    const outcome = attemptOutcome({
      status: finished.status,
      task: finished.task,
      attempts: finished.workerIds.length,
    });
    if (outcome?.counts === 'retry') return reports.endWriting().then(() => finished);
    return reports.end().then((progress): TaskRecord => ({ ...finished, progress }));
  }
}
