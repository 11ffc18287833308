import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';

import {
  DEFAULT_QUEUE,
  InvalidTaskError,
  PRIORITY_MAX,
  PRIORITY_MIN,
  TaskContext,
  invalidBlockingMs,
  invalidName,
  invalidHardStopAfterMs,
  invalidTimeoutMs,
  isValidTimeoutMs,
  invalidPriority,
  invalidRetryPolicy,
  retryPolicyProblem,
  isValidName,
  takesContextMismatch,
  taskProviderNotStatic,
  type TaskOptions,
  type TaskSchedule,
} from '../core';
import {
  TaskDefinition,
  type ResolvedTaskOptions,
  type TaskProviderClass,
} from './task-definition';
import { TaskMetadataAccessor } from './task-metadata.accessor';
import { TaskRegistry } from './task.registry';
import { checkTaskUnique } from './task-uniqueness';

/**
 * Finds every `@Task` method on the application's providers at bootstrap and
 * fills the registry. Tasks must live on singleton providers: a worker has no
 * request to build a request-scoped one from.
 *
 * @internal
 */
@Injectable()
export class TaskExplorer implements OnModuleInit {
  private readonly logger = new Logger(TaskExplorer.name);

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: TaskMetadataAccessor,
    private readonly registry: TaskRegistry,
  ) {}

  onModuleInit(): void {
    this.explore();
  }

  /**
   * @throws InvalidTaskError for a task on a non-singleton provider or with invalid options.
   * @throws DuplicateTaskError when two tasks share a name.
   */
  explore(): void {
    for (const wrapper of this.discovery.getProviders()) {
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        this.refuseScopedTasks(wrapper);
        continue;
      }
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const options = this.accessor.getTaskOptions(
          (prototype as Record<string, unknown>)[methodName],
        );
        if (!options) continue;
        this.registry.register(this.define(wrapper, instance, prototype, methodName, options));
      }
    }
    this.logger.log(`Discovered ${this.registry.size} task(s)`);
  }

  private define(
    wrapper: InstanceWrapper,
    instance: object,
    prototype: object,
    methodName: string,
    options: TaskOptions,
  ): TaskDefinition {
    const ownClass = instance.constructor as TaskProviderClass;
    const classes = new Set<TaskProviderClass>([ownClass]);
    // `{ provide: MailTasks, useClass: SesMailTasks }`: users enqueue through the token's class.
    if (typeof wrapper.token === 'function') classes.add(wrapper.token as TaskProviderClass);
    const moduleName = wrapper.host?.metatype?.name;
    const place = `${ownClass.name}.${methodName}${moduleName ? ` (in ${moduleName})` : ''}`;
    const resolved = this.resolve(`${ownClass.name}.${methodName}`, prototype, methodName, options);
    return new TaskDefinition(instance, methodName, resolved, [...classes], place);
  }

  private resolve(
    defaultName: string,
    prototype: object,
    methodName: string,
    options: TaskOptions,
  ): ResolvedTaskOptions {
    const name = options.name ?? defaultName;
    if (!isValidName(name)) throw new InvalidTaskError(invalidName('task', name));
    const queue = options.queue ?? DEFAULT_QUEUE;
    if (!isValidName(queue)) throw new InvalidTaskError(invalidName('queue', queue));
    const { backend } = options;
    if (backend !== undefined && !isValidName(backend)) {
      throw new InvalidTaskError(invalidName('backend alias', backend));
    }
    const priority = options.priority ?? 0;
    if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
      throw new InvalidTaskError(invalidPriority(name, priority, PRIORITY_MIN, PRIORITY_MAX));
    }
    // The typed enqueue API drops a leading TaskContext parameter from the argument list, so
    // the runtime must agree with the declared parameter type whenever it is known.
    // Metadata says Object for interfaces and type-only imports, so only a concrete other
    // class (String, Number, ...) proves a declared context wrong.
    const firstType = this.accessor.getFirstParameterType(prototype, methodName);
    const firstIsContext = firstType === TaskContext;
    const takesContext = options.takesContext ?? firstIsContext;
    const firstIsOther = firstType !== undefined && firstType !== Object && !firstIsContext;
    if ((takesContext && firstIsOther) || (!takesContext && firstIsContext)) {
      throw new InvalidTaskError(takesContextMismatch(defaultName, takesContext));
    }
    // Checked here too, so a bad policy fails bootstrap instead of the first enqueue.
    const retryProblem = retryPolicyProblem(options.retries, options.backoff);
    if (retryProblem !== null) throw new InvalidTaskError(invalidRetryPolicy(name, retryProblem));
    const { blockingMs } = options;
    if (blockingMs !== undefined && !(Number.isSafeInteger(blockingMs) && blockingMs > 0)) {
      throw new InvalidTaskError(invalidBlockingMs(name, blockingMs));
    }
    const { timeoutMs } = options;
    if (timeoutMs !== undefined && !isValidTimeoutMs(timeoutMs)) {
      throw new InvalidTaskError(invalidTimeoutMs(name, timeoutMs));
    }
    const hardStopAfterMs = options.cancel?.hardStopAfterMs;
    if (options.cancel !== undefined && !isValidTimeoutMs(hardStopAfterMs)) {
      throw new InvalidTaskError(invalidHardStopAfterMs(name, hardStopAfterMs));
    }
    if (options.unique !== undefined) checkTaskUnique(name, options.unique);
    return {
      name,
      queue,
      priority,
      ...(backend === undefined ? {} : { backend }),
      takesContext,
      ...(options.retries === undefined ? {} : { retries: options.retries }),
      ...(options.backoff === undefined ? {} : { backoff: { ...options.backoff } }),
      ...(blockingMs === undefined ? {} : { blockingMs }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(hardStopAfterMs === undefined ? {} : { cancel: { hardStopAfterMs } }),
      ...(options.schedule === undefined ? {} : { schedules: scheduleList(options.schedule) }),
      ...(options.unique === undefined ? {} : { unique: { ...options.unique } }),
    };
  }

  private refuseScopedTasks(wrapper: InstanceWrapper): void {
    const metatype = wrapper.metatype;
    if (wrapper.inject || typeof metatype !== 'function') return;
    const prototype = metatype.prototype as object | undefined;
    if (!prototype) return;
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      if (!this.accessor.getTaskOptions((prototype as Record<string, unknown>)[methodName]))
        continue;
      const scope = wrapper.isTransient ? 'transient' : 'request-scoped';
      throw new InvalidTaskError(taskProviderNotStatic(metatype.name, methodName, scope));
    }
  }
}

/** `schedule: {...}` or `schedule: [{...}, ...]` as a list, each entry copied. */
function scheduleList(schedule: TaskSchedule | readonly TaskSchedule[]): TaskSchedule[] {
  const list: readonly TaskSchedule[] = Array.isArray(schedule)
    ? (schedule as readonly TaskSchedule[])
    : [schedule as TaskSchedule];
  return list.map((entry) => ({ ...entry }));
}
