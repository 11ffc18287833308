import { BackendUnavailableError } from '../../../lib/core/errors/backend-unavailable.error';
import type { ScheduleStore } from '../../../lib/core/ports/schedule-store.port';
import { DEFAULT_APP_NAME } from '../../../lib/core/threadmill.constants';
import { ScheduleTicker, tickTaskId } from '../../../lib/schedule/schedule-ticker';
import { memoryBackend } from '../../helpers/memory-backend';
import {
  enqueueTickOn,
  scheduleDueSince,
  storeOf,
  tasksOfSchedule,
  tickerOn,
} from '../../helpers/schedule-race';

/** A logger that keeps its errors, so a test sees what a pass reported. */
const keptErrors = () => {
  const errors: string[] = [];
  return {
    errors,
    logger: { log: () => undefined, warn: () => undefined, error: (m: string) => errors.push(m) },
  };
};

describe('ScheduleTicker', () => {
  it('after a pass that died between its enqueues and the cursor move, enqueues nothing twice', async () => {
    const backend = memoryBackend();
    const cursor = await scheduleDueSince(backend, 'nightly', 1000, 3_000);
    const real = storeOf(backend);
    // The store goes away right after the enqueues, as a pool killed there would leave it.
    const dying: ScheduleStore = Object.assign(Object.create(real) as ScheduleStore, {
      advanceSchedule: () => Promise.reject(new BackendUnavailableError('store gone')),
    });
    const { errors, logger } = keptErrors();
    const first = new ScheduleTicker({
      store: dying,
      logger,
      enqueueTick: enqueueTickOn(backend),
      isLive: async () => false,
      app: DEFAULT_APP_NAME,
      canEnqueue: () => true,
    });
    await first.pass();
    const enqueuedFirst = (await tasksOfSchedule(backend, 'nightly')).length;
    expect(enqueuedFirst).toBeGreaterThanOrEqual(4);
    expect(errors).toEqual([expect.stringMatching(/Schedule "nightly": .*store gone/)]);
    expect((await real.getSchedule('nightly'))?.nextTickMs).toBe(cursor);

    const enqueuedAgain = await tickerOn(backend).pass();
    const ticks = await tasksOfSchedule(backend, 'nightly');
    // Only ticks that fell due since are new; the ones of the dead pass were refused.
    expect(ticks.length).toBe(enqueuedFirst + enqueuedAgain);
    expect(ticks.map((task) => task.id)).toEqual(
      ticks.map((_, n) => tickTaskId('nightly', cursor + n * 1000)),
    );
    expect((await real.getSchedule('nightly'))?.nextTickMs).toBe(cursor + ticks.length * 1000);
  });

  it('reports a schedule whose definition it cannot read and goes on with the others', async () => {
    const backend = memoryBackend();
    const store = storeOf(backend);
    await store.putSchedule({
      id: 'broken',
      definition: 'not json',
      origin: 'runtime',
      app: DEFAULT_APP_NAME,
      paused: false,
      nextTickMs: 1,
    });
    await scheduleDueSince(backend, 'fine', 60_000, 0);
    const { errors, logger } = keptErrors();
    const ticker = new ScheduleTicker({
      store,
      logger,
      enqueueTick: async () => undefined,
      isLive: async () => false,
      app: DEFAULT_APP_NAME,
      canEnqueue: () => true,
    });
    await expect(ticker.pass()).resolves.toBe(1);
    expect(errors).toEqual([
      expect.stringMatching(/Schedule "broken" is stored with a definition/),
    ]);
  });
});
