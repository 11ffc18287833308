/**
 * Options of `@Task()`.
 *
 * @publicApi
 */
export interface TaskOptions {
  /** Stable name stored with every enqueued task. Default: `ClassName.methodName`. */
  name?: string;
  /** Queue the task is enqueued on. Default: `'default'`. */
  queue?: string;
  /** Whole number from -100 to 100; higher runs first. Default: 0. */
  priority?: number;
  /** Alias of the backend that stores the task. Default: `'default'`. */
  backend?: string;
  /** When true, the method receives a `TaskContext` as its first argument. */
  takesContext?: boolean;
}

/**
 * Per-call overrides of a task's options (the original's `task.using(...)`).
 *
 * @publicApi
 */
export interface TaskOverrides {
  priority?: number;
  queue?: string;
  backend?: string;
  /** Earliest time the task may run; needs a backend that supports deferral. */
  runAfter?: Date;
}
