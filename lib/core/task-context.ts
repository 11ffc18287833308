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
}
