import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { RunnerResults } from './suite';

/** The keyed row's target: a unique key costs at most 30% on a sequential enqueue. */
const KEYED_TARGET: Target = {
  text: '≤ 1.3× plain',
  check: (row) => (row.threadmill === null ? null : row.threadmill <= 1.3),
};

/**
 * "enqueue, sequential, with a unique key": how many times as long as the
 * plain sequential enqueue each keyed one took (each with a key of its own,
 * so each makes a task), per Threadmill runner; null for a library without
 * keys. Put next to the plain sequential row.
 */
export function keyedEnqueueRow(
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  const timeRatio = (r: RunnerResults): number | null => {
    const plain = r.enqueue.sequential;
    const keyed = r.enqueue.sequentialKeyed;
    if (!plain || !keyed) return null;
    const seconds = (entry: typeof plain) =>
      median(entry.costs.map((cost) => cost.seconds)) / entry.tasks;
    return seconds(keyed) / seconds(plain);
  };
  return {
    key: 'enqueue.sequentialKeyed',
    label: 'enqueue, sequential, with a unique key',
    unit: '× the plain sequential time',
    better: 'lower',
    ...pick(timeRatio),
    target: KEYED_TARGET,
  };
}
