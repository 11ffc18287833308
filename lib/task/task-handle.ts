import type { EnqueuedTaskResult, TaskOverrides, TaskResult, WaitForResultOptions } from '../core';
import type { TaskCancellation } from './task-control.service';
import type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task-method.types';

/** What a handle needs from the service; keeps the two files free of a cycle. */
export interface TaskEnqueuer {
  enqueue<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    args: TaskArgs<C[K]>,
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>>;
  enqueueMany<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    argsList: readonly TaskArgs<C[K]>[],
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>[]>;
  resultOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    overrides?: TaskOverrides,
  ): Promise<TaskResult<TaskReturn<C[K]>>>;
  finalResultOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    options: WaitForResultOptions,
    overrides?: TaskOverrides,
  ): Promise<TaskResult<TaskReturn<C[K]>>>;
  cancelOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    overrides?: TaskOverrides,
  ): Promise<TaskCancellation<TaskReturn<C[K]>>>;
}

/**
 * One task method, bound for enqueuing, with per-call options (`using`):
 * `tasks.task(MailTasks, 'sendWelcome').using({ priority: 5 }).enqueue(userId)`.
 * Immutable: `using` returns a new handle.
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
export class TaskHandle<C extends object, K extends TaskMethodName<C>> {
  constructor(
    private readonly enqueuer: TaskEnqueuer,
    readonly taskClass: TaskClass<C>,
    readonly method: K,
    readonly overrides: Readonly<TaskOverrides> = {},
  ) {}

  /**
   * A handle whose enqueues use these per-call overrides (merged over this handle's).
   *
   * @param overrides priority, queue, backend, runAfter, id, key and the rest of TaskOverrides.
   */
  using(overrides: TaskOverrides): TaskHandle<C, K> {
    return new TaskHandle(this.enqueuer, this.taskClass, this.method, {
      ...this.overrides,
      ...overrides,
    });
  }

  /**
   * Enqueues one run of the task with these arguments.
   *
   * @throws InvalidTaskError when the arguments or the options cannot be accepted.
   */
  enqueue(...args: TaskArgs<C[K]>): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>> {
    return this.enqueuer.enqueue(this.taskClass, this.method, args, this.overrides);
  }

  /**
   * Enqueues one run per argument list, as TaskService.enqueueMany: all or
   * none up to ENQUEUE_SLICE (1000) lists, one slice after the other beyond.
   *
   * @throws InvalidTaskError when any arguments or the options cannot be accepted.
   * @throws PartialEnqueueError when a slice after the first failed.
   */
  enqueueMany(
    argsList: readonly TaskArgs<C[K]>[],
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>[]> {
    return this.enqueuer.enqueueMany(this.taskClass, this.method, argsList, this.overrides);
  }

  /**
   * The current result of a run of this task, typed by its return type, read
   * from the task's backend.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  getResult(id: string): Promise<TaskResult<TaskReturn<C[K]>>> {
    return this.enqueuer.resultOf(this.taskClass, this.method, id, this.overrides);
  }

  /**
   * The result of a run of this task once it is final (SUCCESSFUL, FAILED or
   * CANCELLED), typed by its return type. Waits on the backend's feed of
   * finished tasks, never polls; resolves at once for a task already final.
   *
   * @param id the id of an enqueued run.
   * @param options `timeoutMs`: give up after that long (absent: wait until final).
   * @throws TaskWaitTimeoutError when `timeoutMs` passes first (the task goes on).
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  waitForResult(
    id: string,
    options: WaitForResultOptions = {},
  ): Promise<TaskResult<TaskReturn<C[K]>>> {
    return this.enqueuer.finalResultOf(this.taskClass, this.method, id, options, this.overrides);
  }

  /**
   * Cancels a run of this task on the task's backend: a waiting run never
   * starts, a running one's `TaskContext.signal` is aborted (see
   * TaskControlService.cancel).
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   */
  cancel(id: string): Promise<TaskCancellation<TaskReturn<C[K]>>> {
    return this.enqueuer.cancelOf(this.taskClass, this.method, id, this.overrides);
  }
}
