import { Logger } from '@nestjs/common';
import type { ScheduleStore } from '../../lib/core/ports/schedule-store.port';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { DEFAULT_APP_NAME } from '../../lib/core/threadmill.constants';
import { definitionText, resolveSchedule } from '../../lib/schedule/schedule-definition';
import { ScheduleTicker, type ScheduleTickerDeps } from '../../lib/schedule/schedule-ticker';
import { readyRecord } from './ready-record';

/** The schedule store of a backend that must have one. */
export function storeOf(backend: TaskBackend): ScheduleStore {
  return backend.schedules;
}

/**
 * How a pool's main process enqueues a tick, straight through the backend:
 * the task layer's record, its id derived, the tick in the descriptor.
 */
export function enqueueTickOn(backend: TaskBackend): ScheduleTickerDeps['enqueueTick'] {
  return async (scheduleId, definition, tickMs, taskId) => {
    const record = readyRecord(backend.alias, {
      id: taskId,
      name: definition.task,
      args: [...definition.args],
    });
    await backend.tasks.enqueue({
      ...record,
      task: { ...record.task, schedule: { id: scheduleId, tickAt: new Date(tickMs) } },
    });
  };
}

/** A ScheduleTicker on `backend` as a pool's main process has one (overlap allowed). */
export function tickerOn(backend: TaskBackend): ScheduleTicker {
  return new ScheduleTicker({
    store: storeOf(backend),
    logger: new Logger('ScheduleRace'),
    enqueueTick: enqueueTickOn(backend),
    isLive: async () => false,
    app: DEFAULT_APP_NAME,
    canEnqueue: () => true,
  });
}

/**
 * Stores schedule `id` ticking every `everyMs`, its cursor on the tick at or
 * before `agoMs` before the store's now; returns that cursor.
 */
export async function scheduleDueSince(
  backend: TaskBackend,
  id: string,
  everyMs: number,
  agoMs: number,
): Promise<number> {
  const store = storeOf(backend);
  const definition = resolveSchedule(id, 'race.task', { every: everyMs, args: [id] }, 'spec');
  const cursor = Math.floor(((await store.scheduleClock()) - agoMs) / everyMs) * everyMs;
  await store.putSchedule({
    id,
    definition: definitionText(definition),
    origin: 'runtime',
    app: DEFAULT_APP_NAME,
    paused: false,
    nextTickMs: cursor,
  });
  return cursor;
}

/** Every task of the default queue's ready segment that schedule `id` enqueued, by tick. */
export async function tasksOfSchedule(backend: TaskBackend, id: string): Promise<TaskRecord[]> {
  return (await backend.reads.peek('default', 'ready', 10_000))
    .filter((record) => record.task.schedule?.id === id)
    .sort((a, b) => a.task.schedule!.tickAt.getTime() - b.task.schedule!.tickAt.getTime());
}
