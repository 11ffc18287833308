import type { ScheduledTick } from './task-record.interface';
import type { TaskResult } from './task-result';

/**
 * Passed as the first argument to a task declared with `takesContext: true`.
 *
 * @publicApi
 */
export class TaskContext {
  constructor(readonly taskResult: TaskResult) {}

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
