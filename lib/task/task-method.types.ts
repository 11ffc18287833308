import type { TaskContext } from '../core/task-context';

/**
 * A provider class, as passed to `TaskService.enqueue(MailTasks, ...)`.
 *
 * @example
 * ```ts
 * const mailTasks: TaskClass<MailTasks> = MailTasks;
 * ```
 * @publicApi
 */
export type TaskClass<C extends object = object> = abstract new (...args: never[]) => C;

/**
 * The names of the methods of `C` (only `@Task` methods are accepted at run time).
 *
 * @example
 * ```ts
 * const method: TaskMethodName<MailTasks> = 'sendWelcome';
 * ```
 * @publicApi
 */
export type TaskMethodName<C> = {
  [K in keyof C]-?: C[K] extends (...args: never[]) => unknown ? K : never;
}[keyof C] &
  string;

type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * The arguments a caller passes to enqueue a task method: its parameters, minus a
 * leading `TaskContext` (the worker supplies that one).
 *
 * @example
 * ```ts
 * // report(context: TaskContext, day: string) takes [day: string] from callers:
 * type ReportArgs = TaskArgs<ReportTasks['report']>;
 * ```
 * @publicApi
 */
export type TaskArgs<F> = F extends (...args: infer P) => unknown
  ? P extends [infer First, ...infer Rest]
    ? IsAny<First> extends true
      ? P
      : [First] extends [TaskContext]
        ? Rest
        : P
    : P
  : never;

/**
 * What a task method's result holds: its awaited return type.
 *
 * @example
 * ```ts
 * type Sent = TaskReturn<MailTasks['sendWelcome']>; // string, for Promise<string>
 * ```
 * @publicApi
 */
export type TaskReturn<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;
