import type { AliasOption } from '../core/alias-option.interface';
import { Injectable, type LoggerService } from '@nestjs/common';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { UnknownScheduleError } from '../core/errors/unknown-schedule.error';
import type { ScheduleStore, StoredSchedule } from '../core/ports/schedule-store.port';
import type { ScheduleOptions } from '../core/schedule-options.interface';
import {
  corruptSchedule,
  scheduleNotFound,
  scheduleTaskNotRegistered,
  schedulesSynced,
  scheduleSyncFailed,
  scheduleTakenOver,
} from './schedule.messages';
import type { TaskBackend } from '../core/task-backend.interface';
import { newTaskId } from '../core/task-id';
import type { TaskResult } from '../core/task-result';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { queueNotConfigured } from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import { TaskRegistry } from '../task/task.registry';
import { TaskService } from '../task/task.service';
import { ThreadmillApp } from '../threadmill-app';
import { DeclaredSchedules } from './declared-schedules';
import { definitionText, parseDefinition, resolveSchedule } from './schedule-definition';
import { scheduleInfo, type ScheduleInfo } from './schedule-info';
import { syncDeclared } from './schedule-sync';
import { ScheduleTicker } from './schedule-ticker';
import { TickSequence } from './tick-sequence';
import { aliasOption } from '../utils/alias-option.util';

/**
 * Which backend's schedules a call is about. Default: the app's default backend.
 *
 * @publicApi
 */
export type ScheduleLookup = AliasOption;

/** What a worker pool's main process does with schedules (see MaintenanceSchedule). */
export interface PoolSchedules {
  /** Makes the stored declared schedules the code's; once, before the first pass. */
  sync(): Promise<void>;
  /** Enqueues the due ticks; after every pass. */
  tick(): Promise<void>;
}

/**
 * Manages schedules at run time: add or replace one by id, remove, list,
 * trigger a run now, pause and resume. Each tick is enqueued exactly once by
 * the worker pools' maintenance passes (docs/schedules.md).
 *
 * @example
 * ```ts
 * await this.schedules.add('cleanup', { task: 'Maintenance.cleanup', cron: '0 * * * *' });
 * await this.schedules.pause('cleanup');
 * ```
 * @publicApi
 */
@Injectable()
export class ScheduleService {
  constructor(
    private readonly registry: TaskRegistry,
    private readonly backends: BackendRegistry,
    private readonly tasks: TaskService,
    private readonly declared: DeclaredSchedules,
    private readonly app: ThreadmillApp,
  ) {}

  /**
   * Adds a schedule, or replaces the one with this id. Its first tick is the
   * first after now; replacing it with the same definition keeps its next
   * tick, and a paused one stays paused.
   *
   * @param id 1-150 letters, digits, `-`, `_`, `.` or `:`.
   * @param options the task's name, `cron` (with `timezone`) or `every`, args, queue,
   *   priority, backend, catchUp and overlap.
   * @throws InvalidTaskError naming the schedule and the option at fault.
   * @throws UnknownBackendError when no backend has the alias.
   */
  async add(id: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    const task = this.registry.find(options.task);
    if (!task) {
      throw new InvalidTaskError(scheduleTaskNotRegistered(id, options.task, this.registry.names));
    }
    const definition = resolveSchedule(id, options.task, options, 'ScheduleService.add');
    const alias =
      aliasOption(options, 'ScheduleService.add') ??
      task.options.alias ??
      this.backends.defaultAlias;
    const { backend, store } = this.storeOf(alias);
    const queue = definition.queue ?? task.options.queue;
    if (!backend.queues.includes(queue)) {
      throw new InvalidTaskError(queueNotConfigured(task.name, queue, alias, backend.queues));
    }
    const text = definitionText(definition);
    const existing = await store.getSchedule(id);
    if (existing?.origin !== 'runtime' || existing.definition !== text) {
      const paused = existing?.paused ?? false;
      const nextTickMs = paused
        ? null
        : new TickSequence(definition.rule).nextAfter(await store.scheduleClock());
      await store.putSchedule({
        id,
        definition: text,
        origin: 'runtime',
        app: this.app.name,
        paused,
        nextTickMs,
      });
    }
    return this.get(id, { alias: alias });
  }

  /** Removes a schedule (declared ones come back when a pool starts with them). Whether it was stored. */
  async remove(id: string, lookup: ScheduleLookup = {}): Promise<boolean> {
    return this.storeOf(this.aliasOf(lookup)).store.removeSchedule(id);
  }

  /** Every schedule one backend stores, by id, with its next and last tick. */
  async list(lookup: ScheduleLookup = {}): Promise<ScheduleInfo[]> {
    const alias = this.aliasOf(lookup);
    const { store } = this.storeOf(alias);
    const infos: ScheduleInfo[] = [];
    for (const stored of await store.listSchedules()) {
      const info = await this.infoOf(stored, alias);
      if (info) infos.push(info);
    }
    return infos;
  }

  /** @throws UnknownScheduleError when no schedule has this id. */
  async get(id: string, lookup: ScheduleLookup = {}): Promise<ScheduleInfo> {
    const alias = this.aliasOf(lookup);
    const stored = await this.storedOf(id, alias);
    const info = await this.infoOf(stored, alias);
    if (!info) throw new InvalidTaskError(corruptSchedule(id));
    return info;
  }

  /**
   * Enqueues one run of the schedule's task now, outside its ticks (its next
   * tick and overlap are unchanged); its context's `tickAt` is now.
   *
   * @throws UnknownScheduleError when no schedule has this id.
   */
  async trigger(id: string, lookup: ScheduleLookup = {}): Promise<TaskResult> {
    const info = await this.get(id, lookup);
    const { store } = this.storeOf(info.alias);
    const tickAt = new Date(await store.scheduleClock());
    return this.tasks.enqueueScheduled(
      info.task,
      info.args,
      this.overridesOf(info, `schedule:${id}:run:${newTaskId()}`),
      { id, tickAt },
    );
  }

  /** Stops the schedule's ticks until `resume`. @throws UnknownScheduleError. */
  async pause(id: string, lookup: ScheduleLookup = {}): Promise<ScheduleInfo> {
    return this.setPaused(id, this.aliasOf(lookup), true);
  }

  /**
   * Ticks again from now: ticks due while it was paused are not enqueued.
   * @throws UnknownScheduleError.
   */
  async resume(id: string, lookup: ScheduleLookup = {}): Promise<ScheduleInfo> {
    return this.setPaused(id, this.aliasOf(lookup), false);
  }

  /** @internal What a pool's main process on `backend` runs. */
  forPool(backend: TaskBackend, logger: LoggerService): PoolSchedules {
    const store = backend.schedules;
    const app = this.app.name;
    const ticker = new ScheduleTicker({
      store,
      logger,
      app,
      canEnqueue: (definition) => {
        const task = this.registry.find(definition.task);
        return (
          task !== undefined && backend.queues.includes(definition.queue ?? task.options.queue)
        );
      },
      enqueueTick: async (scheduleId, definition, tickMs, taskId) => {
        await this.tasks.enqueueScheduled(
          definition.task,
          definition.args,
          this.overridesOf({ ...definition, alias: backend.alias }, taskId),
          { id: scheduleId, tickAt: new Date(tickMs) },
        );
      },
      isLive: async (taskId) => {
        const status = await this.statusOf(backend, taskId);
        return status === TaskResultStatus.READY || status === TaskResultStatus.RUNNING;
      },
    });
    return {
      sync: async () => {
        try {
          const declared = this.declared.forBackend(backend.alias);
          const counts = await syncDeclared(store, declared, app);
          for (const { id, from } of counts.taken) logger.warn(scheduleTakenOver(id, from, app));
          logger.log(schedulesSynced(backend.alias, counts));
        } catch (error) {
          logger.error(scheduleSyncFailed(backend.alias, error));
        }
      },
      tick: async () => {
        await ticker.pass();
      },
    };
  }

  private overridesOf(
    target: { alias: string; queue?: string; priority?: number },
    id: string,
  ): { id: string; alias: string; queue?: string; priority?: number } {
    return {
      id,
      alias: target.alias,
      ...(target.queue === undefined ? {} : { queue: target.queue }),
      ...(target.priority === undefined ? {} : { priority: target.priority }),
    };
  }

  private async setPaused(id: string, alias: string, paused: boolean): Promise<ScheduleInfo> {
    const { store } = this.storeOf(alias);
    const stored = await this.storedOf(id, alias);
    if (stored.paused !== paused) {
      const definition = parseDefinition(stored.definition);
      if (!definition) throw new InvalidTaskError(corruptSchedule(id));
      const nextTickMs = paused
        ? null
        : new TickSequence(definition.rule).nextAfter(await store.scheduleClock());
      const { id: storedId, definition: text, origin, app } = stored;
      await store.putSchedule({ id: storedId, definition: text, origin, app, paused, nextTickMs });
    }
    return this.get(id, { alias: alias });
  }

  private async storedOf(id: string, alias: string): Promise<StoredSchedule> {
    const stored = await this.storeOf(alias).store.getSchedule(id);
    if (!stored) throw new UnknownScheduleError(scheduleNotFound(id, alias));
    return stored;
  }

  private async infoOf(stored: StoredSchedule, alias: string): Promise<ScheduleInfo | null> {
    const definition = parseDefinition(stored.definition);
    if (!definition) return null;
    const status = stored.lastTick
      ? await this.statusOf(this.backends.get(alias), stored.lastTick.taskId)
      : null;
    return scheduleInfo(stored, definition, alias, status);
  }

  private async statusOf(backend: TaskBackend, taskId: string): Promise<TaskResultStatus | null> {
    try {
      return (await backend.tasks.getResult(taskId)).status;
    } catch (error) {
      // Finished longer ago than its retention: the status is no longer known.
      if (error instanceof TaskResultDoesNotExist) return null;
      throw error;
    }
  }

  private aliasOf(lookup: ScheduleLookup): string {
    return aliasOption(lookup, 'ScheduleService') ?? this.backends.defaultAlias;
  }

  private storeOf(alias: string): { backend: TaskBackend; store: ScheduleStore } {
    const backend = this.backends.get(alias);
    return { backend, store: backend.schedules };
  }
}
