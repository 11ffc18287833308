import { Injectable } from '@nestjs/common';

import {
  EnqueuedTaskResult,
  InvalidTaskError,
  TaskResult,
  backendNotConfigured,
  waitForFinished,
  idNeedsOneTask,
  isExecutingBackend,
  notATask,
  partialEnqueue,
  PartialEnqueueError,
  taskNameNotRegistered,
  type ScheduledTick,
  type TaskBackend,
  type TaskOverrides,
  type WaitForResultOptions,
  type TaskTraceContext,
} from '../core';
import { BackendRegistry } from '../backends/backend.registry';
import { taskTracer } from '../telemetry/task-tracer';
import type { TaskDefinition } from './task-definition';
import {
  TaskControlService,
  type ManualControlOptions,
  type TaskCancellation,
} from './task-control.service';
import { TaskEvents } from './task-events';
import { TaskHandle, type TaskEnqueuer } from './task-handle';
import type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task-method.types';
import { TaskRegistry } from './task.registry';
import { enqueueInSlices } from './enqueue-slices';
import { buildTaskRecord } from './task-record.builder';

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
    private readonly events: TaskEvents,
    private readonly control: TaskControlService,
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
    return this.enqueueDefinition<TaskReturn<C[K]>>(
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
    const definition = this.registry.find(name);
    if (!definition) {
      throw new InvalidTaskError(taskNameNotRegistered(name, this.registry.names));
    }
    return this.enqueueDefinition(definition, argsList, overrides);
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
    const definition = this.registry.find(name);
    if (!definition) {
      throw new InvalidTaskError(taskNameNotRegistered(name, this.registry.names));
    }
    const [result] = await this.enqueueDefinition(definition, [args], overrides, tick);
    return result;
  }

  // Not async: the untraced path hands back store's promise, with no wrapper per call; a
  // throw here reaches the async callers as their rejection.
  private enqueueDefinition<T>(
    definition: TaskDefinition,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
    tick?: ScheduledTick,
  ): Promise<EnqueuedTaskResult<T>[]> {
    const backend = this.backendFor(definition, overrides);
    if (overrides.id !== undefined && argsList.length > 1) {
      throw new InvalidTaskError(idNeedsOneTask(definition.name, argsList.length));
    }
    const parent = taskTracer.enqueueContext();
    // Outside a trace (or without @opentelemetry/api) nothing about tracing is built or stored.
    if (parent === null) return this.store<T>(definition, backend, argsList, overrides, tick);
    return taskTracer.traceEnqueue(
      parent,
      {
        taskName: definition.name,
        queue: overrides.queue ?? definition.options.queue,
        backend: backend.alias,
        count: argsList.length,
      },
      (traceContext) => this.store<T>(definition, backend, argsList, overrides, tick, traceContext),
    );
  }

  private async store<T>(
    definition: TaskDefinition,
    backend: TaskBackend,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
    tick: ScheduledTick | undefined,
    traceContext?: TaskTraceContext,
  ): Promise<EnqueuedTaskResult<T>[]> {
    const now = new Date();
    const records = argsList.map((args) =>
      buildTaskRecord(definition, backend, args, overrides, now, tick, traceContext),
    );
    const { stored, failure } = await enqueueInSlices(backend, records);
    const source = this.backends.sourceFor(backend.alias);
    // A key's holder comes back in place of the record sent, under its own id.
    const results = stored.map(
      (record, i) => new EnqueuedTaskResult<T>(record, source, record.id === records[i].id),
    );
    // An immediate backend already announced the enqueue before running the task.
    if (!(isExecutingBackend(backend) && backend.runsOnEnqueue)) {
      for (const result of results) if (result.created) this.events.emit('enqueued', result);
    }
    if (failure === undefined) return results;
    // Nothing stored: the bulk was all or none after all, and its error says so.
    if (results.length === 0) throw failure;
    throw new PartialEnqueueError(
      partialEnqueue(
        backend.alias,
        definition.name,
        results.length,
        records.length,
        failure.message,
      ),
      results,
      { cause: failure },
    );
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

  private backendFor(definition: TaskDefinition, overrides: TaskOverrides): TaskBackend {
    const alias = overrides.backend ?? definition.options.backend ?? this.backends.defaultAlias;
    const backend = this.backends.find(alias);
    if (!backend) {
      throw new InvalidTaskError(
        backendNotConfigured(definition.name, alias, this.backends.aliases),
      );
    }
    return backend;
  }
}
