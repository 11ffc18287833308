import { Injectable } from '@nestjs/common';

import {
  EnqueuedTaskResult,
  InvalidTaskError,
  TaskResult,
  waitForFinished,
  notATask,
  taskNameNotRegistered,
  type ScheduledTick,
  type TaskOverrides,
  type WaitForResultOptions,
} from '../core';
import { BackendRegistry } from '../backends/backend.registry';
import type { TaskDefinition } from './task-definition';
import {
  TaskControlService,
  type ManualControlOptions,
  type TaskCancellation,
} from './task-control.service';
import { TaskHandle, type TaskEnqueuer } from './task-handle';
import type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task-method.types';
import { TaskEnqueueService } from './task-enqueue.service';
import { TaskRegistry } from './task.registry';

/**
 * Enqueues tasks and reads their results. Arguments are checked by the
 * compiler against the task method's parameters (minus a leading
 * `TaskContext`), and the result is typed by its awaited return type.
 *
 * @example
 * ```ts
 * const result = await this.tasks.enqueue(MailTasks, 'sendWelcome', [userId]);
 * const urgent = this.tasks.task(MailTasks, 'sendWelcome').using({ priority: 50 });
 * await urgent.enqueue(userId);
 * ```
 * @publicApi
 */
@Injectable()
export class TaskService implements TaskEnqueuer {
  constructor(
    private readonly registry: TaskRegistry,
    private readonly backends: BackendRegistry,
    private readonly control: TaskControlService,
    private readonly enqueuer: TaskEnqueueService,
  ) {}

  /**
   * A handle on one task method, for `using(overrides)` and repeated enqueues.
   *
   * @param taskClass the provider class that declares the task.
   * @param method the `@Task` method's name.
   */
  task<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
  ): TaskHandle<C, K> {
    return new TaskHandle(this, taskClass, method);
  }

  /**
   * Enqueues one run of a task.
   *
   * @param taskClass the provider class that declares the task.
   * @param method the `@Task` method's name.
   * @param args the method's arguments (without the TaskContext).
   * @param overrides priority, queue, backend, runAfter or delayMs, retry policy, id and unique key.
   * @throws InvalidTaskError naming the task when the method is no task, an option is invalid,
   *   an argument would not survive a JSON round trip or the arguments exceed the backend's
   *   maxPayloadBytes (default 1 MiB).
   * @throws TaskAlreadyExistsError when `overrides.id` is already stored (it carries that task).
   * @throws UniqueKeyHeldError when a window holds the key but its task is no longer stored.
   * @throws StoreFullError when the store is full: nothing was stored, try again later.
   * @throws EnqueueOutcomeUnknownError when the reply was lost: the task may be stored.
   */
  async enqueue<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    args: TaskArgs<C[K]>,
    overrides: TaskOverrides = {},
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>> {
    const [result] = await this.enqueueMany(taskClass, method, [args], overrides);
    return result;
  }

  /**
   * Enqueues one run per argument list, all or none up to ENQUEUE_SLICE
   * (1000) lists; a bigger bulk is stored one slice after the other, each
   * all or none, so no single step holds the store for long. Lists that
   * share a unique key act as if enqueued one by one: the first makes the
   * task, the rest get it back.
   *
   * @throws InvalidTaskError as `enqueue` does, before anything is stored.
   * @throws PartialEnqueueError when a slice after the first failed: it
   *   carries the tasks the slices before it stored.
   */
  async enqueueMany<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    argsList: readonly TaskArgs<C[K]>[],
    overrides: TaskOverrides = {},
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>[]> {
    return this.enqueuer.enqueue<TaskReturn<C[K]>>(
      this.definitionOf(taskClass, method),
      argsList,
      overrides,
    );
  }

  /**
   * Enqueues runs of a task known only by its stable name at run time (a CLI,
   * an HTTP endpoint, another service). Arguments are checked at run time only
   * (JSON-safe); prefer `enqueue` where the task class is at hand.
   *
   * @param name the task's stable name, e.g. `'MailTasks.sendWelcome'`.
   * @param argsList one argument list per run to enqueue.
   * @param overrides as `enqueue`'s, for these runs.
   * @throws InvalidTaskError when no `@Task` has this name, or as `enqueue` does.
   */
  async enqueueByName(
    name: string,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides = {},
  ): Promise<EnqueuedTaskResult[]> {
    return this.enqueuer.enqueue(this.definitionNamed(name), argsList, overrides);
  }

  /**
   * @internal Enqueues one run of a schedule's task by name, the schedule and
   * tick recorded in its descriptor (see lib/schedule).
   */
  async enqueueScheduled(
    name: string,
    args: readonly unknown[],
    overrides: TaskOverrides,
    tick: ScheduledTick,
  ): Promise<TaskResult> {
    const definition = this.definitionNamed(name);
    const [result] = await this.enqueuer.enqueue(definition, [args], overrides, tick);
    return result;
  }

  /**
   * The current state of a task.
   *
   * @param id the id of an enqueued task.
   * @param backend the alias it was enqueued on; default: the only configured, else `'default'`.
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async getResult<T = unknown>(
    id: string,
    backend: string = this.backends.defaultAlias,
  ): Promise<TaskResult<T>> {
    const record = await this.backends.get(backend).getResult(id);
    return new TaskResult<T>(record, this.backends.sourceFor(backend));
  }

  /**
   * The state of a task once it is final (SUCCESSFUL, FAILED or CANCELLED):
   * subscribes to the backend's feed of finished tasks, then reads the task,
   * so a finish in between is not missed; never polls (SQLite's feed reads
   * its results table on a short interval while anyone waits).
   *
   * @param id the id of an enqueued task.
   * @param options `timeoutMs` (absent: wait until final) and the `backend` alias (default as getResult's).
   * @throws TaskWaitTimeoutError when `timeoutMs` passes first: the task goes on.
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async waitForResult<T = unknown>(
    id: string,
    options: WaitForResultOptions & { backend?: string } = {},
  ): Promise<TaskResult<T>> {
    const alias = options.backend ?? this.backends.defaultAlias;
    const source = this.backends.sourceFor(alias);
    const record = await waitForFinished(this.backends.get(alias), id, options);
    return new TaskResult<T>(record, source);
  }

  /** @internal Waits for a result on the backend a task (with these overrides) uses. */
  finalResultOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    options: WaitForResultOptions,
    overrides: TaskOverrides = {},
  ): Promise<TaskResult<TaskReturn<C[K]>>> {
    const definition = this.definitionOf(taskClass, method);
    const backend = overrides.backend ?? definition.options.backend;
    return this.waitForResult(id, { ...options, ...(backend ? { backend } : {}) });
  }

  /** @internal Reads a result from the backend a task (with these overrides) uses. */
  async resultOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    overrides: TaskOverrides = {},
  ): Promise<TaskResult<TaskReturn<C[K]>>> {
    const definition = this.definitionOf(taskClass, method);
    return this.getResult(id, overrides.backend ?? definition.options.backend);
  }

  /**
   * Cancels one task, as TaskControlService.cancel: a waiting task is stored
   * CANCELLED at once and never runs; a running one's signal is aborted.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  cancel<T = unknown>(
    id: string,
    options: ManualControlOptions = {},
  ): Promise<TaskCancellation<T>> {
    return this.control.cancel<T>(id, options);
  }

  /** @internal Cancels a task on the backend a task (with these overrides) uses. */
  async cancelOf<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    id: string,
    overrides: TaskOverrides = {},
  ): Promise<TaskCancellation<TaskReturn<C[K]>>> {
    const definition = this.definitionOf(taskClass, method);
    return this.control.cancel(id, { backend: overrides.backend ?? definition.options.backend });
  }

  private definitionOf(taskClass: TaskClass, method: string): TaskDefinition {
    const definition = this.registry.findByMethod(taskClass, method);
    if (!definition) throw new InvalidTaskError(notATask(`${taskClass.name}.${method}`));
    return definition;
  }

  private definitionNamed(name: string): TaskDefinition {
    const definition = this.registry.find(name);
    if (!definition) {
      throw new InvalidTaskError(taskNameNotRegistered(name, this.registry.names));
    }
    return definition;
  }
}
