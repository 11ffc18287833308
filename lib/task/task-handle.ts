import type { EnqueuedTaskResult } from '../core/enqueued-task-result';
import type { TaskOverrides } from '../core/task-options.interface';
import type { TaskResult } from '../core/task-result';
import type { WaitForResultOptions } from '../core/wait-for-finished';
import type { ManualControlOptions, TaskCancellation } from './task-control.service';
import type { TaskTarget } from './task-definition';
import { aliasOption } from '../utils/alias-option.util';
import type { AliasOption } from '../core/alias-option.interface';

/** What a handle needs from the service; keeps the two files free of a cycle. */
export interface TaskEnqueuer {
  enqueueTarget<R>(
    target: TaskTarget,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
  ): Promise<EnqueuedTaskResult<R>[]>;
  getResult<R>(id: string, alias?: string): Promise<TaskResult<R>>;
  waitForResult<R>(id: string, options: WaitForResultOptions & AliasOption): Promise<TaskResult<R>>;
  cancel<R>(id: string, options: ManualControlOptions): Promise<TaskCancellation<R>>;
}

/**
 * One task, bound for enqueuing, with per-call options (`using`), typed by
 * its arguments `A` and result `R`:
 * `tasks.task(MailTasks, 'sendWelcome').using({ priority: 5 }).enqueue(userId)`,
 * or `tasks.task(SendDigest)` for a contract. Immutable: `using` returns a
 * new handle.
 *
 * @example
 * ```ts
 * const welcome = this.tasks.task(MailTasks, 'sendWelcome');
 * const result = await welcome.using({ queue: 'emails', priority: 50 }).enqueue(userId);
 * const later = await welcome.getResult(result.id); // TaskResult<string>
 * const final = await welcome.waitForResult(result.id, { timeoutMs: 30_000 });
 * ```
 * @publicApi
 */
export class TaskHandle<A extends readonly unknown[] = readonly unknown[], R = unknown> {
  /** @internal Use `TaskService.task`. */
  constructor(
    private readonly enqueuer: TaskEnqueuer,
    /** The task, looked up at each call: a handle may be made before the tasks are discovered. */
    private readonly target: () => TaskTarget,
    readonly overrides: Readonly<TaskOverrides> = {},
  ) {}

  /**
   * A handle whose enqueues use these per-call overrides (merged over this handle's).
   *
   * @param overrides priority, queue, alias, runAfter, id, key and the rest of TaskOverrides.
   */
  using(overrides: TaskOverrides): TaskHandle<A, R> {
    return new TaskHandle(this.enqueuer, this.target, { ...this.overrides, ...overrides });
  }

  /**
   * Enqueues one run of the task with these arguments.
   *
   * @throws InvalidTaskError when the arguments or the options cannot be accepted.
   */
  async enqueue(...args: A): Promise<EnqueuedTaskResult<R>> {
    const [result] = await this.enqueueMany([args]);
    return result;
  }

  /**
   * Enqueues one run per argument list, as TaskService.enqueueMany: all or
   * none up to ENQUEUE_SLICE (1000) lists, one slice after the other beyond.
   *
   * @throws InvalidTaskError when any arguments or the options cannot be accepted.
   * @throws PartialEnqueueError when a slice after the first failed.
   */
  async enqueueMany(argsList: readonly A[]): Promise<EnqueuedTaskResult<R>[]> {
    return this.enqueuer.enqueueTarget<R>(this.target(), argsList, this.overrides);
  }

  /**
   * The current result of a run of this task, typed by its result, read
   * from the task's backend.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  getResult(id: string): Promise<TaskResult<R>> {
    return this.enqueuer.getResult<R>(id, this.alias());
  }

  /**
   * The result of a run of this task once it is final (SUCCESSFUL, FAILED or
   * CANCELLED), typed by its result. Waits on the backend's feed of
   * finished tasks, never polls; resolves at once for a task already final.
   *
   * @param id the id of an enqueued run.
   * @param options `timeoutMs`: give up after that long (absent: wait until final).
   * @throws TaskWaitTimeoutError when `timeoutMs` passes first (the task goes on).
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  waitForResult(id: string, options: WaitForResultOptions = {}): Promise<TaskResult<R>> {
    return this.enqueuer.waitForResult<R>(id, { ...options, alias: this.alias() });
  }

  /**
   * Cancels a run of this task on the task's backend: a waiting run never
   * starts, a running one's `TaskContext.signal` is aborted (see
   * TaskControlService.cancel).
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  cancel(id: string): Promise<TaskCancellation<R>> {
    return this.enqueuer.cancel<R>(id, { alias: this.alias() });
  }

  /** The alias the task's runs are stored on; undefined for the app's default. */
  private alias(): string | undefined {
    return aliasOption(this.overrides, 'using(...)') ?? this.target().options.alias;
  }
}
