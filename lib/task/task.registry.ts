import { Injectable } from '@nestjs/common';
import { DuplicateTaskError } from '../core/errors/duplicate-task.error';
import { duplicateTask } from '../core/threadmill.messages';
import type { TaskDefinition, TaskProviderClass } from './task-definition';

/**
 * Every task of the application by name, filled by the explorer at bootstrap.
 * The worker resolves a stored task's name here and nowhere else.
 *
 * @internal
 */
@Injectable()
export class TaskRegistry {
  private readonly byName = new Map<string, TaskDefinition>();

  /** @throws DuplicateTaskError when another method already has this name. */
  register(definition: TaskDefinition): void {
    const existing = this.byName.get(definition.name);
    if (existing) {
      // The same instance and method reached through a second token (useExisting) is one task.
      if (
        existing.instance === definition.instance &&
        existing.methodName === definition.methodName
      ) {
        return;
      }
      throw new DuplicateTaskError(
        duplicateTask(definition.name, existing.place, definition.place),
      );
    }
    this.byName.set(definition.name, definition);
  }

  find(name: string): TaskDefinition | undefined {
    return this.byName.get(name);
  }

  /** The task declared as `method` on `providerClass` (or on a provider that extends it). */
  findByMethod(providerClass: TaskProviderClass, methodName: string): TaskDefinition | undefined {
    let inherited: TaskDefinition | undefined;
    for (const definition of this.byName.values()) {
      if (definition.methodName !== methodName) continue;
      if (definition.providerClasses.includes(providerClass)) return definition;
      if (
        !inherited &&
        definition.providerClasses.some((cls) => cls.prototype instanceof providerClass)
      ) {
        inherited = definition;
      }
    }
    return inherited;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }
}
