import type { AliasOption } from '../core/alias-option.interface';
import type { TaskBackoff, TaskOptions, UniqueOverrides } from '../core/task-options.interface';
import type { ResolvedTaskOptions, TaskTarget } from './task-definition';
import { resolveTaskOptions } from './task-options.resolver';

/**
 * The options of `defineTask`: everything an enqueue needs, so an app that
 * only enqueues stores exactly what the worker's `@Task` would.
 *
 * @publicApi
 */
export interface TaskContractOptions<A extends readonly unknown[]> extends AliasOption {
  /** Stable name stored with every enqueued task; the worker's `@Task` runs it by this name. */
  name: string;
  /** Queue the task is enqueued on. Default: `'default'`. */
  queue?: string;
  /** Whole number from -100 to 100; higher runs first. Default: 0. */
  priority?: number;
  /** Tries after the first (whole number, 0 to 100). Default: 0. */
  retries?: number;
  /** Wait between attempts. Default: exponential from 1 s, at most 1 hour, with jitter. */
  backoff?: TaskBackoff;
  /** Longest one attempt may run (ms), as `@Task({ timeoutMs })`. Default: none. */
  timeoutMs?: number;
  /** A unique key derived from the arguments, as `@Task({ unique })`. Default: none. */
  unique?: UniqueOverrides & { key: (...args: A) => string };
}

/**
 * What the worker's `@Task(contract, options)` may add to a contract: how
 * its own method runs, nothing an enqueue stores.
 *
 * @publicApi
 */
export type TaskImplementationOptions = Pick<
  TaskOptions,
  'takesContext' | 'blockingMs' | 'cancel' | 'schedule'
>;

/** The options a contract alone decides: `@Task(contract, ...)` may not set them. */
export const CONTRACT_OPTION_KEYS = [
  'name',
  'queue',
  'priority',
  'alias',
  'backend',
  'retries',
  'backoff',
  'timeoutMs',
  'unique',
] as const satisfies readonly (keyof TaskOptions)[];

/**
 * A task as both sides of a queue know it, with no class: its name, the
 * types of its arguments and result, and its enqueue options. A producer
 * enqueues it (`tasks.enqueue(contract, args)`) without the worker's code;
 * the worker implements it with `@Task(contract)`. Made by `defineTask`.
 *
 * @publicApi
 */
export class TaskContract<
  A extends readonly unknown[] = readonly unknown[],
  R = unknown,
> implements TaskTarget {
  /** Carries the argument and result types for the compiler; never set. */
  declare readonly types?: { readonly args: A; readonly result: R };

  /** @internal Use `defineTask`. */
  constructor(
    readonly options: ResolvedTaskOptions,
    /** @internal The options as written, which an implementation resolves again with its own. */
    readonly declared: TaskOptions,
  ) {}

  get name(): string {
    return this.options.name;
  }
}

/**
 * Defines a task contract in code that the producing and the working apps
 * share. Arguments and result are given as type parameters; the options are
 * checked here, so a bad one fails where the contract is loaded.
 *
 * @example
 * ```ts
 * export const SendDigest = defineTask<[day: string], { sent: number }>({
 *   name: 'mail.sendDigest',
 *   queue: 'emails',
 *   retries: 3,
 * });
 * ```
 * @throws InvalidTaskError naming the task and the option that is invalid.
 * @publicApi
 */
export function defineTask<A extends readonly unknown[] = [], R = void>(
  options: TaskContractOptions<A>,
): TaskContract<A, R> {
  // The key function takes the contract's arguments, which the stored options do not name.
  const declared = { ...options } as TaskOptions;
  return new TaskContract<A, R>(resolveTaskOptions(options.name, declared, false), declared);
}
