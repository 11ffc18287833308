import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { TaskContext } from '../core/task-context';
import { contractOptionRedefined } from './task-name.messages';
import type { TaskOptions } from '../core/task-options.interface';
import { takesContextMismatch, taskProviderNotStatic } from '../core/threadmill.messages';
import {
  TaskDefinition,
  type ResolvedTaskOptions,
  type TaskProviderClass,
} from './task-definition';
import { CONTRACT_OPTION_KEYS, type TaskContract } from './task-contract';
import { TaskMetadataAccessor, type TaskMetadata } from './task-metadata.accessor';
import { resolveTaskOptions } from './task-options.resolver';
import { TaskRegistry } from './task.registry';

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
    options: TaskMetadata,
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
    metadata: TaskMetadata,
  ): ResolvedTaskOptions {
    const { contract, ...written } = metadata;
    const options = contract ? this.implementation(defaultName, contract, written) : written;
    const name = options.name ?? defaultName;
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
    return resolveTaskOptions(name, options, takesContext);
  }

  /**
   * The options of a method that implements `contract`: the contract's, and
   * only the method's own on top (how it runs), so what a producer stores
   * from the contract is what this worker runs.
   *
   * @throws InvalidTaskError when the method sets an option the contract decides.
   */
  private implementation(place: string, contract: TaskContract, written: TaskOptions): TaskOptions {
    const redefined = CONTRACT_OPTION_KEYS.filter((key) => written[key] !== undefined);
    if (redefined.length > 0) {
      throw new InvalidTaskError(contractOptionRedefined(place, contract.name, redefined));
    }
    return { ...contract.declared, ...written };
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
