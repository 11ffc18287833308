import type { BenchConfig } from './bench-config';
import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { RunnerResults } from './suite';

/** The wait row's key, for the page that explains it. */
export const WAIT_ROW_KEY = 'wait.median';

/** The promise: `waitForResult` (and `enqueue --wait`) resolve within 50 ms of the finish, by the median. */
const WAIT_TARGET: Target = {
  text: '< 50 ms',
  check: (row) => (row.threadmill === null ? null : row.threadmill < 50),
};

/**
 * "wait for a result": from just before a worker's acknowledge to the
 * `waitForResult` of another backend instance resolving, the median over the
 * waits of a repetition, then the median of the repetitions; null for a
 * runner that measured none (BullMQ, Bee-Queue have no such wait).
 */
export function waitRow(
  config: Pick<BenchConfig, 'waits'>,
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  const perRep = (r: RunnerResults): number | null =>
    r.waits.length === 0 ? null : median(r.waits.map((latencies) => median(latencies)));
  return {
    key: WAIT_ROW_KEY,
    label: `wait for a result, finish to resolve (median of ${config.waits} waits)`,
    unit: 'ms',
    better: 'lower',
    ...pick(perRep),
    target: WAIT_TARGET,
  };
}
