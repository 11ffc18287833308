import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  EnqueuedTaskResult,
  InvalidTaskError,
  PRIORITY_MAX,
  PRIORITY_MIN,
  TaskResult,
  TaskResultStatus,
  assertJsonSafe,
  backendNotConfigured,
  deferNotSupported,
  delayWithRunAfter,
  invalidDelay,
  invalidPriority,
  invalidRetryPolicy,
  invalidRunAfter,
  invalidTaskId,
  invalidTimeoutMs,
  idNeedsOneTask,
  isValidTimeoutMs,
  isValidTaskId,
  isExecutingBackend,
  MAX_DELAY_MS,
  notATask,
  payloadTooLarge,
  queueNotConfigured,
  retryPolicyProblem,
  taskNameNotRegistered,
  timeoutNotBelowLease,
  type ScheduledTick,
  type TaskBackend,
  type TaskOverrides,
  type TaskRecord,
} from '../core';
import { BackendRegistry } from '../backends/backend.registry';
import type { TaskDefinition } from './task-definition';
import { TaskEvents } from './task-events';
import { TaskHandle, type TaskEnqueuer } from './task-handle';
import type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task-method.types';
import { TaskRegistry } from './task.registry';
import { debounceStart, uniquenessOf } from './task-uniqueness';

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
   * Enqueues one run per argument list in one backend call: all or none.
   * Lists that share a unique key act as if enqueued one by one: the first
   * makes the task, the rest get it back.
   *
   * @throws InvalidTaskError as `enqueue` does, before anything is stored.
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

  private async enqueueDefinition<T>(
    definition: TaskDefinition,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
    tick?: ScheduledTick,
  ): Promise<EnqueuedTaskResult<T>[]> {
    const backend = this.backendFor(definition, overrides);
    if (overrides.id !== undefined && argsList.length > 1) {
      throw new InvalidTaskError(idNeedsOneTask(definition.name, argsList.length));
    }
    const now = new Date();
    const records = argsList.map((args) =>
      this.buildRecord(definition, backend, args, overrides, now, tick),
    );
    const stored = await backend.enqueueMany(records);
    const source = this.backends.sourceFor(backend.alias);
    // A key's holder comes back in place of the record sent, under its own id.
    const results = stored.map(
      (record, i) => new EnqueuedTaskResult<T>(record, source, record.id === records[i].id),
    );
    // An immediate backend already announced the enqueue before running the task.
    if (!(isExecutingBackend(backend) && backend.runsOnEnqueue)) {
      for (const result of results) if (result.created) this.events.emit('enqueued', result);
    }
    return results;
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

  /** The runAfter `overrides` ask for (runAfter itself, or now + delayMs), checked; null for none. */
  private runAfterOf(
    name: string,
    backend: TaskBackend,
    overrides: TaskOverrides,
    now: Date,
  ): Date | null {
    // null reads as not set.
    const runAfter = overrides.runAfter ?? undefined;
    const delayMs = overrides.delayMs ?? undefined;
    if (runAfter === undefined && delayMs === undefined) return null;
    if (runAfter !== undefined && delayMs !== undefined) {
      throw new InvalidTaskError(delayWithRunAfter(name));
    }
    const assertDefers = (option: 'runAfter' | 'delayMs'): void => {
      if (!backend.features.defer) {
        throw new InvalidTaskError(deferNotSupported(name, backend.alias, option));
      }
    };
    if (delayMs === undefined) {
      if (!(runAfter instanceof Date) || Number.isNaN(runAfter.getTime())) {
        throw new InvalidTaskError(invalidRunAfter(name, runAfter));
      }
      assertDefers('runAfter');
      return runAfter;
    }
    if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
      throw new InvalidTaskError(invalidDelay(name, delayMs, MAX_DELAY_MS));
    }
    assertDefers('delayMs');
    // The backend sends what is left of it as a wait, which the store adds to its own clock.
    return new Date(now.getTime() + delayMs);
  }

  /** A time limit the backend's lease would not cut short. */
  private assertTimeout(name: string, backend: TaskBackend, timeoutMs: unknown): void {
    if (!isValidTimeoutMs(timeoutMs)) throw new InvalidTaskError(invalidTimeoutMs(name, timeoutMs));
    if (timeoutMs >= backend.leaseTtlMs) {
      throw new InvalidTaskError(
        timeoutNotBelowLease(name, timeoutMs, backend.alias, backend.leaseTtlMs),
      );
    }
  }

  private buildRecord(
    definition: TaskDefinition,
    backend: TaskBackend,
    args: readonly unknown[],
    overrides: TaskOverrides,
    now: Date,
    tick?: ScheduledTick,
  ): TaskRecord {
    const name = definition.name;
    const id = overrides.id ?? randomUUID();
    if (!isValidTaskId(id)) throw new InvalidTaskError(invalidTaskId(name, id));
    const priority = overrides.priority ?? definition.options.priority;
    if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
      throw new InvalidTaskError(invalidPriority(name, priority, PRIORITY_MIN, PRIORITY_MAX));
    }
    const queue = overrides.queue ?? definition.options.queue;
    if (!backend.queues.includes(queue)) {
      throw new InvalidTaskError(queueNotConfigured(name, queue, backend.alias, backend.queues));
    }
    const unique = uniquenessOf(name, definition.options.unique, backend, args, overrides);
    const runAfter = debounceStart(unique, now) ?? this.runAfterOf(name, backend, overrides, now);
    const retries = overrides.retries ?? definition.options.retries;
    const backoff = overrides.backoff ?? definition.options.backoff;
    const retryProblem = retryPolicyProblem(retries, backoff);
    if (retryProblem !== null) throw new InvalidTaskError(invalidRetryPolicy(name, retryProblem));
    const timeoutMs = overrides.timeoutMs ?? definition.options.timeoutMs;
    if (timeoutMs !== undefined) this.assertTimeout(name, backend, timeoutMs);
    assertJsonSafe(args, name, 'args');
    // Measured as stored: a huge payload would slow every hop (Redis, network, the worker's parse).
    const limit = backend.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    const bytes = Buffer.byteLength(JSON.stringify(args));
    if (bytes > limit) {
      throw new InvalidTaskError(payloadTooLarge(name, bytes, limit, backend.alias));
    }
    return {
      id,
      task: {
        name,
        queue,
        priority,
        runAfter,
        backend: backend.alias,
        // Only when set, so a task without a retry policy stores nothing extra.
        ...(retries === undefined ? {} : { retries }),
        ...(backoff === undefined ? {} : { backoff: { ...backoff } }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(tick === undefined ? {} : { schedule: tick }),
        ...(unique === undefined ? {} : { unique }),
      },
      status: TaskResultStatus.READY,
      enqueuedAt: now,
      startedAt: null,
      finishedAt: null,
      lastAttemptedAt: null,
      args: [...args],
      errors: [],
      workerIds: [],
    };
  }
}
