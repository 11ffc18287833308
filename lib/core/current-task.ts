import { AsyncLocalStorage } from 'node:async_hooks';

import type { TaskContext } from './task-context';

const running = new AsyncLocalStorage<TaskContext>();

/**
 * The context of the task whose code is running: from the task method and
 * from everything it calls, awaits or schedules (timers, callbacks, a
 * promise it left behind). `undefined` outside any task.
 *
 * @example
 * ```ts
 * const attempt = currentTaskContext()?.attempt;
 * ```
 * @publicApi
 */
export function currentTaskContext(): TaskContext | undefined {
  return running.getStore();
}

/** Runs `work` as the code of `context`'s task. @internal */
export function runInTaskContext<T>(context: TaskContext, work: () => T): T {
  return running.run(context, work);
}
