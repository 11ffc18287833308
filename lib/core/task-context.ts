import type { ScheduledTick } from './task-record.interface';
import type { TaskResult } from './task-result';

/**
 * The running attempt of a task: passed as the first argument to a task
 * declared with `takesContext: true`, and reachable from any task's code
 * through `currentTaskContext()`.
 *
 * @publicApi
 */
export class TaskContext {
  constructor(
    readonly taskResult: TaskResult,
    /**
     * Aborted when the attempt should stop: at its `timeoutMs` (the reason is
     * a `TaskTimeoutError`). Hand it to what the task awaits (`fetch`, a
     * driver, `setTimeout` of `node:timers/promises`) or check `aborted`.
     */
    readonly signal: AbortSignal = new AbortController().signal,
  ) {}

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
}
