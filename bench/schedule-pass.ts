import { Logger } from '@nestjs/common';
import { TaskResultDoesNotExist } from '../lib/core/errors/task-result-does-not-exist.error';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { DEFAULT_APP_NAME } from '../lib/core/threadmill.constants';
import { definitionText, resolveSchedule } from '../lib/schedule/schedule-definition';
import { ScheduleTicker } from '../lib/schedule/schedule-ticker';
import { TickSequence } from '../lib/schedule/tick-sequence';
import { enqueueTickOn, storeOf } from '../test/helpers/schedule-race';
import { inParallel } from './queue-runner.interface';

const HOUR_MS = 3_600_000;
/** Schedules stored at once while filling (untimed set-up). */
const PUT_IN_FLIGHT = 50;

/**
 * Stores `count` schedules on `backend` through its ScheduleStore, every one
 * to 24 hours, each cursor on its first tick more than an hour ahead of the
 * store's clock, so none comes due while the benchmark runs; and returns the
 * schedule tick of a pool's maintenance pass on them (ScheduleTicker.pass,
 * as ScheduleService.forPool builds it), which resolves with the ticks it enqueued.
 */
export async function storeIdleSchedules(
  backend: TaskBackend,
  task: string,
  count: number,
): Promise<() => Promise<number>> {
  const store = storeOf(backend);
  const now = await store.scheduleClock();
  await inParallel(count, PUT_IN_FLIGHT, async (i) => {
    const id = `idle-${i}`;
    const definition = resolveSchedule(id, task, { every: ((i % 24) + 1) * HOUR_MS }, 'bench');
    await store.putSchedule({
      id,
      definition: definitionText(definition),
      origin: 'runtime',
      app: DEFAULT_APP_NAME,
      paused: false,
      nextTickMs: new TickSequence(definition.rule).nextAfter(now + HOUR_MS),
    });
  });
  const ticker = new ScheduleTicker({
    store,
    logger: new Logger('BenchSchedules'),
    app: DEFAULT_APP_NAME,
    canEnqueue: () => true,
    enqueueTick: enqueueTickOn(backend),
    isLive: async (taskId) => {
      try {
        const { status } = await backend.tasks.getResult(taskId);
        return status === TaskResultStatus.READY || status === TaskResultStatus.RUNNING;
      } catch (error) {
        if (error instanceof TaskResultDoesNotExist) return false;
        throw error;
      }
    },
  });
  return () => ticker.pass();
}
