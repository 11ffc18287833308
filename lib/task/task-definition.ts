import type { TaskSchedule } from '../core/schedule-options.interface';
import type { TaskContext } from '../core/task-context';
import type { TaskBackoff, TaskUniqueOptions } from '../core/task-options.interface';

/** A provider class as users refer to it in `enqueue(MailTasks, ...)`. */
export type TaskProviderClass = abstract new (...args: never[]) => object;

/** A task's options after defaults and validation. */
export interface ResolvedTaskOptions {
  readonly name: string;
  readonly queue: string;
  readonly priority: number;
  /** Absent when the task names none: the app's default backend (BackendRegistry.defaultAlias). */
  readonly alias?: string;
  readonly takesContext: boolean;
  /** Absent when the task sets none (fail once). */
  readonly retries?: number;
  readonly backoff?: TaskBackoff;
  /** Absent when the task declares none: the pool's liveness timeout applies. */
  readonly blockingMs?: number;
  /** Absent when the task declares none: an attempt may run until its lease ends. */
  readonly timeoutMs?: number;
  readonly cancel?: { readonly hardStopAfterMs: number };
  /** The schedules declared on the task, as written (lib/schedule checks them at bootstrap). */
  readonly schedules?: readonly TaskSchedule[];
  /** Absent when the task derives no unique key. */
  readonly unique?: TaskUniqueOptions;
}

/**
 * What an enqueue needs of a task: its name and options. A discovered
 * `@Task` method, a contract, or a name no task of this app registers.
 */
export interface TaskTarget {
  readonly name: string;
  readonly options: ResolvedTaskOptions;
}

/**
 * One discovered `@Task` method: the provider instance that owns it (so its
 * injected dependencies are intact), the method, and its resolved options.
 *
 * @internal
 */
export class TaskDefinition implements TaskTarget {
  constructor(
    readonly instance: object,
    readonly methodName: string,
    readonly options: ResolvedTaskOptions,
    /** The provider's class as the user refers to it (the DI token when it is a class). */
    readonly providerClasses: readonly TaskProviderClass[],
    /** Where it is declared, for messages: `Class.method (in Module)`. */
    readonly place: string,
  ) {}

  get name(): string {
    return this.options.name;
  }

  /** Calls the method on its provider; throws or rejects with whatever the method does. */
  invoke(args: readonly unknown[], context: TaskContext | null): unknown {
    const method = (this.instance as Record<string, unknown>)[this.methodName] as (
      ...callArgs: unknown[]
    ) => unknown;
    const callArgs = this.options.takesContext ? [context, ...args] : [...args];
    return method.apply(this.instance, callArgs);
  }
}
