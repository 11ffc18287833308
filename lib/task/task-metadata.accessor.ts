import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { TaskOptions } from '../core/task-options.interface';
import { TASK_METADATA } from '../core/threadmill.constants';
import type { TaskContract } from './task-contract';

/** What `@Task()` writes on a method: its options, and the contract it implements, if any. */
export interface TaskMetadata extends TaskOptions {
  readonly contract?: TaskContract;
}

/**
 * The only reader of `@Task()` metadata.
 *
 * @internal
 */
@Injectable()
export class TaskMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** What `@Task()` wrote on this method, or undefined when it is not a task. */
  getTaskOptions(method: unknown): TaskMetadata | undefined {
    if (typeof method !== 'function') return undefined;
    return this.reflector.get<TaskMetadata | undefined>(TASK_METADATA, method);
  }

  /** The declared type of the method's first parameter (needs emitDecoratorMetadata), if known. */
  getFirstParameterType(prototype: object, methodName: string): unknown {
    const types = Reflect.getMetadata('design:paramtypes', prototype, methodName) as
      unknown[] | undefined;
    return types?.[0];
  }
}
