import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { duplicateScheduleId } from './schedule.messages';
import { backendNotConfigured, queueNotConfigured } from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import type { TaskDefinition } from '../task/task-definition';
import { TaskRegistry } from '../task/task.registry';
import { resolveSchedule, type ScheduleDefinition } from './schedule-definition';

/** One schedule declared on a `@Task`, resolved. */
export interface DeclaredSchedule {
  readonly id: string;
  /** The alias of the backend that stores it: the task's. */
  readonly alias: string;
  readonly definition: ScheduleDefinition;
}

/**
 * The schedules declared with `@Task({ schedule })`, checked once at
 * bootstrap (after the explorer filled the registry), so a bad expression,
 * zone, queue or argument stops the application before it runs.
 *
 * @internal
 */
@Injectable()
export class DeclaredSchedules implements OnApplicationBootstrap {
  private resolved: readonly DeclaredSchedule[] | null = null;

  constructor(
    private readonly registry: TaskRegistry,
    private readonly backends: BackendRegistry,
  ) {}

  /** @throws InvalidTaskError naming the schedule and the option at fault. */
  onApplicationBootstrap(): void {
    this.all();
  }

  /** Every declared schedule. @throws InvalidTaskError as at bootstrap. */
  all(): readonly DeclaredSchedule[] {
    this.resolved ??= this.resolve();
    return this.resolved;
  }

  /** The declared schedules a backend stores. */
  forBackend(alias: string): DeclaredSchedule[] {
    return this.all().filter((schedule) => schedule.alias === alias);
  }

  private resolve(): DeclaredSchedule[] {
    const declared: DeclaredSchedule[] = [];
    const places = new Map<string, string>();
    for (const name of this.registry.names) {
      const task = this.registry.find(name) as TaskDefinition;
      (task.options.schedules ?? []).forEach((options, index) => {
        const id = options.id ?? derivedScheduleId(name, index);
        const definition = resolveSchedule(id, name, options, task.place);
        const backend = this.backendOf(task, definition);
        const first = places.get(id);
        if (first !== undefined) {
          throw new InvalidTaskError(duplicateScheduleId(id, first, task.place));
        }
        places.set(id, task.place);
        declared.push({ id, alias: backend, definition });
      });
    }
    return declared;
  }

  private backendOf(task: TaskDefinition, definition: ScheduleDefinition): string {
    const alias = task.options.alias ?? this.backends.defaultAlias;
    const backend = this.backends.find(alias);
    if (!backend) {
      throw new InvalidTaskError(backendNotConfigured(task.name, alias, this.backends.aliases));
    }
    const queue = definition.queue ?? task.options.queue;
    if (!backend.queues.includes(queue)) {
      throw new InvalidTaskError(queueNotConfigured(task.name, queue, alias, backend.queues));
    }
    return alias;
  }
}

/**
 * A declared schedule's id when it gives none: the task's name (characters a
 * task id does not allow become `_`) and the schedule's index on the task.
 */
export function derivedScheduleId(taskName: string, index: number): string {
  return `${taskName.replace(/[^A-Za-z0-9_.-]/g, '_')}.${index}`;
}
