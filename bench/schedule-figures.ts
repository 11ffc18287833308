import type { BenchConfig } from './bench-config';
import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { RunnerResults } from './suite';

/** The maintenance pass row's key, for the page that explains it. */
export const IDLE_SCHEDULE_PASS_KEY = 'schedules.idlePass';

/** The promise: with 1,000 schedules none due, a pass's schedule read costs under a millisecond of Redis time. */
const IDLE_PASS_TARGET: Target = {
  text: '< 1000 µs',
  check: (row) => (row.threadmill === null ? null : row.threadmill < 1000),
};

/**
 * "maintenance pass, N schedules none due": Redis's time per schedule tick
 * of a pool's maintenance pass (the INFO commandstats `usec` of its script
 * calls over the passes), the median of the repetitions; null for a runner
 * that measured none (BullMQ, Bee-Queue). `pick` is the Redis-only picker:
 * SQLite has no Redis time.
 */
export function idleSchedulePassRow(
  config: Pick<BenchConfig, 'idleSchedules'>,
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  const perPass = (r: RunnerResults): number | null =>
    r.schedulePasses.length === 0
      ? null
      : median(r.schedulePasses.map((sample) => sample.scriptMicros / sample.passes));
  return {
    key: IDLE_SCHEDULE_PASS_KEY,
    label: `maintenance pass, ${config.idleSchedules.toLocaleString('en-US')} schedules none due: Redis time per pass`,
    unit: 'µs',
    better: 'lower',
    ...pick(perPass),
    target: IDLE_PASS_TARGET,
  };
}
