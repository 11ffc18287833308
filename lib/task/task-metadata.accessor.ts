import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { TASK_METADATA, type TaskOptions } from '../core';

/**
 * The only reader of `@Task()` metadata.
 *
 * @internal
 */
@Injectable()
export class TaskMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The options written by `@Task()` on this method, or undefined when it is not a task. */
  getTaskOptions(method: unknown): TaskOptions | undefined {
    if (typeof method !== 'function') return undefined;
    return this.reflector.get<TaskOptions | undefined>(TASK_METADATA, method);
  }

  /** The declared type of the method's first parameter (needs emitDecoratorMetadata), if known. */
  getFirstParameterType(prototype: object, methodName: string): unknown {
    const types = Reflect.getMetadata('design:paramtypes', prototype, methodName) as
      unknown[] | undefined;
    return types?.[0];
  }
}
