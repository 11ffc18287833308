import { Injectable } from '@nestjs/common';
import { EnqueuedTaskResult } from '../core/enqueued-task-result';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import type { TaskOverrides } from '../core/task-options.interface';
import type { ScheduledTick } from '../core/task-record.interface';
import { TaskResult } from '../core/task-result';
import { notATask, taskNameNotRegistered } from '../core/threadmill.messages';
import { waitForFinished, type WaitForResultOptions } from '../core/wait-for-finished';
import { BackendRegistry } from '../backends/backend.registry';
import { defineTask, type TaskContract } from './task-contract';
import type { TaskDefinition, TaskTarget } from './task-definition';
import {
  TaskControlService,
  type ManualControlOptions,
  type TaskCancellation,
} from './task-control.service';
import { TaskHandle, type TaskEnqueuer } from './task-handle';
import type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task-method.types';
import { TaskEnqueueService } from './task-enqueue.service';
import { TaskRegistry } from './task.registry';
import { aliasOption } from '../utils/alias-option.util';
import type { AliasOption } from '../core/alias-option.interface';

/**
 * Enqueues tasks and reads their results. Arguments are checked by the
 * compiler against a contract's argument types, or the task method's
 * parameters (minus a leading `TaskContext`), and the result is typed by
 * the contract's result or the method's awaited return type.
 *
 * @example
 * ```ts
 * const digest = await this.tasks.enqueue(SendDigest, [day]);
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
   * A handle on one task, for `using(overrides)` and repeated enqueues: a
   * contract, or a task method by its provider class.
   *
   * @param task a contract (`defineTask`), or the provider class that declares the task.
   * @param method the `@Task` method's name, with a class.
   */
  task<A extends readonly unknown[], R>(contract: TaskContract<A, R>): TaskHandle<A, R>;
  task<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
  ): TaskHandle<TaskArgs<C[K]>, TaskReturn<C[K]>>;
  task(task: TaskContract | TaskClass, method?: string): TaskHandle {
    return new TaskHandle(this, () => this.targetOf(task, method));
  }

  /**
   * Enqueues one run of a task: a contract with its arguments, or a task
   * method by its provider class, its name and its arguments.
   *
   * @param task a contract (`defineTask`), or the provider class that declares the task.
   * @param method the `@Task` method's name, with a class.
   * @param args the arguments (without the TaskContext).
   * @param overrides priority, queue, alias, runAfter or delayMs, retry policy, id and unique key.
   * @throws InvalidTaskError naming the task when the method is no task, an option is invalid,
   *   an argument would not survive a JSON round trip or the arguments exceed the backend's
   *   maxPayloadBytes (default 1 MiB).
   * @throws TaskAlreadyExistsError when `overrides.id` is already stored (it carries that task).
   * @throws UniqueKeyHeldError when a window holds the key but its task is no longer stored.
   * @throws StoreFullError when the store is full: nothing was stored, try again later.
   * @throws EnqueueOutcomeUnknownError when the reply was lost: the task may be stored.
   */
  enqueue<A extends readonly unknown[], R>(
    contract: TaskContract<A, R>,
    args: NoInfer<A>,
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<R>>;
  enqueue<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    args: TaskArgs<C[K]>,
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>>;
  async enqueue(...call: TaskCall): Promise<EnqueuedTaskResult> {
    const { target, list, overrides } = this.read(call);
    const [result] = await this.enqueueTarget(target, [list as readonly unknown[]], overrides);
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
  enqueueMany<A extends readonly unknown[], R>(
    contract: TaskContract<A, R>,
    argsList: readonly NoInfer<A>[],
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<R>[]>;
  enqueueMany<C extends object, K extends TaskMethodName<C>>(
    taskClass: TaskClass<C>,
    method: K,
    argsList: readonly TaskArgs<C[K]>[],
    overrides?: TaskOverrides,
  ): Promise<EnqueuedTaskResult<TaskReturn<C[K]>>[]>;
  async enqueueMany(...call: TaskCall): Promise<EnqueuedTaskResult[]> {
    const { target, list, overrides } = this.read(call);
    return this.enqueueTarget(target, list as readonly (readonly unknown[])[], overrides);
  }

  /**
   * @internal The enqueue every other one comes to (a handle's too). Not
   * async: its callers are, and turn a throw here into their rejection.
   */
  enqueueTarget<R>(
    target: TaskTarget,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides = {},
  ): Promise<EnqueuedTaskResult<R>[]> {
    return this.enqueuer.enqueue<R>(target, argsList, overrides);
  }

  /**
   * Enqueues runs of a task known only by its stable name at run time (a CLI,
   * an HTTP endpoint, another service). Arguments are checked at run time only
   * (JSON-safe); prefer `enqueue` with a contract or the task class. A name
   * this app registers is enqueued with its task's options; any other with
   * the overrides alone (queue `'default'` unless they name one, checked
   * against the backend's configured queues), for the worker that registers it.
   *
   * @param name the task's stable name, e.g. `'MailTasks.sendWelcome'`.
   * @param argsList one argument list per run to enqueue.
   * @param overrides as `enqueue`'s, for these runs.
   * @throws InvalidTaskError when the name or the queue is invalid, or as `enqueue` does.
   */
  async enqueueByName(
    name: string,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides = {},
  ): Promise<EnqueuedTaskResult[]> {
    return this.enqueuer.enqueue(
      this.registry.find(name) ?? defineTask({ name }),
      argsList,
      overrides,
    );
  }

  /**
   * Whether this app registers a `@Task` of this name, so a worker of this
   * app can run it. `enqueueByName` does not ask: a name another app's
   * worker registers is enqueued all the same. Ask before enqueuing a name
   * that comes from outside (an HTTP request) to refuse what nothing here runs.
   */
  isRegistered(name: string): boolean {
    return this.registry.find(name) !== undefined;
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
   * @param alias the backend alias it was enqueued on; default: the only configured, else `'default'`.
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async getResult<T = unknown>(
    id: string,
    alias: string = this.backends.defaultAlias,
  ): Promise<TaskResult<T>> {
    const record = await this.backends.get(alias).tasks.getResult(id);
    return new TaskResult<T>(record, this.backends.sourceFor(alias));
  }

  /**
   * The state of a task once it is final (SUCCESSFUL, FAILED or CANCELLED):
   * subscribes to the backend's feed of finished tasks, then reads the task,
   * so a finish in between is not missed; never polls (SQLite's feed reads
   * its results table on a short interval while anyone waits).
   *
   * @param id the id of an enqueued task.
   * @param options `timeoutMs` (absent: wait until final) and the backend `alias` (default as getResult's).
   * @throws TaskWaitTimeoutError when `timeoutMs` passes first: the task goes on.
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async waitForResult<T = unknown>(
    id: string,
    options: WaitForResultOptions & AliasOption = {},
  ): Promise<TaskResult<T>> {
    const alias = aliasOption(options, 'TaskService.waitForResult') ?? this.backends.defaultAlias;
    const source = this.backends.sourceFor(alias);
    const record = await waitForFinished(source, id, options);
    return new TaskResult<T>(record, source);
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

  /** The task a contract, or a class and method, stand for. */
  private targetOf(task: TaskContract | TaskClass, method: string | undefined): TaskTarget {
    if (method === undefined) return task as TaskContract;
    const definition = this.registry.findByMethod(task as TaskClass, method);
    if (!definition) throw new InvalidTaskError(notATask(`${task.name}.${method}`));
    return definition;
  }

  /** An enqueue's arguments, with a contract or with a class and method. */
  private read(call: TaskCall): { target: TaskTarget; list: unknown; overrides: TaskOverrides } {
    if (typeof call[1] === 'string') {
      const [taskClass, method, list, overrides = {}] = call as ClassCall;
      return { target: this.targetOf(taskClass, method), list, overrides };
    }
    const [contract, list, overrides = {}] = call as ContractCall;
    return { target: contract, list, overrides };
  }

  private definitionNamed(name: string): TaskDefinition {
    const definition = this.registry.find(name);
    if (!definition) {
      throw new InvalidTaskError(taskNameNotRegistered(name, this.registry.names));
    }
    return definition;
  }
}

type ContractCall = [TaskContract, unknown, TaskOverrides?];
type ClassCall = [TaskClass, string, unknown, TaskOverrides?];
/** What `enqueue` and `enqueueMany` are called with, by either signature. */
type TaskCall = ContractCall | ClassCall;
