import type { BenchConfig } from './bench-config';
import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { EnqueueMode } from './scenarios';
import type { RunnerResults } from './suite';
import {
  atLeastBullmq,
  BEE_QUEUE_REFERENCE,
  bulkEnqueueTarget,
  enqueueRateTarget,
  sqliteInFlightTarget,
} from './targets';

/** The backend-level in-flight row's key, for the reason beside a missed in-flight target. */
export const BACKEND_LEVEL_ROW_KEY = 'enqueue.concurrentBackendLevel';

/**
 * How the page and the A/B table name an enqueue figure: Threadmill's go
 * through TaskService (the peers' columns through their own public calls),
 * but for the backend-level row, which is below it.
 */
export function enqueueLabel(mode: EnqueueMode, width: number): string {
  switch (mode) {
    case 'sequential':
      return 'enqueue, sequential, through TaskService';
    case 'sequentialKeyed':
      return 'enqueue, sequential, with a unique key, through TaskService';
    case 'concurrent':
      return `enqueue, ${width} in flight, through TaskService`;
    case 'concurrentBackendLevel':
      return `enqueue, ${width} in flight, backend-level (below TaskService)`;
    case 'bulk':
      return `enqueue, bulk of ${width}, through TaskService`;
  }
}

/** The keyed row's target: a unique key costs at most 30% on a sequential enqueue. */
const KEYED_TARGET: Target = {
  text: '≤ 1.3× plain',
  check: (row) => (row.threadmill === null ? null : row.threadmill <= 1.3),
};

type Pick = (
  pickOne: (r: RunnerResults) => number | null,
) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>;

/**
 * "enqueue, sequential, with a unique key": how many times as long as the
 * plain sequential enqueue each keyed one took (each with a key of its own,
 * so each makes a task), per Threadmill runner; null for a library without
 * keys. Put next to the plain sequential row.
 */
export function keyedEnqueueRow(pick: Pick): FigureRow {
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
    label: enqueueLabel('sequentialKeyed', 1),
    unit: '× the plain sequential time',
    better: 'lower',
    ...pick(timeRatio),
    target: KEYED_TARGET,
  };
}

/** The median rate of a runner's enqueue figure (tasks/s), null when not measured. */
function enqueueRate(r: RunnerResults, mode: EnqueueMode): number | null {
  const entry = r.enqueue[mode];
  return entry ? median(entry.costs.map((cost) => entry.tasks / cost.seconds)) : null;
}

/**
 * The enqueue rows: sequential ≥ BullMQ; its keyed variant; 100 in flight
 * ≥ Bee-Queue, with the backend-level row under it (no target: it shows
 * what TaskService costs); bulk; and the SQLite column's in-flight share of
 * its bulk rate.
 */
export function enqueueRows(config: BenchConfig, every: Pick): FigureRow[] {
  const rateRow = (mode: EnqueueMode, width: number, target?: Target): FigureRow => ({
    key: `enqueue.${mode}`,
    label: enqueueLabel(mode, width),
    unit: 'tasks/s',
    better: 'higher',
    ...every((r) => enqueueRate(r, mode)),
    target,
  });
  const concurrentBee = every((r) => enqueueRate(r, 'concurrent')).beeQueue;
  const bulkBee = every((r) => enqueueRate(r, 'bulk')).beeQueue;
  return [
    rateRow('sequential', 1, atLeastBullmq),
    keyedEnqueueRow(every),
    rateRow(
      'concurrent',
      config.enqueueInFlight,
      enqueueRateTarget(concurrentBee, BEE_QUEUE_REFERENCE.concurrentEnqueuePerSecond),
    ),
    rateRow('concurrentBackendLevel', config.enqueueInFlight),
    rateRow('bulk', config.bulkBatch, bulkEnqueueTarget(bulkBee)),
    {
      key: 'enqueue.concurrentOfBulk',
      label: `enqueue, ${config.enqueueInFlight} in flight, share of the bulk rate`,
      unit: 'ratio',
      better: 'higher',
      ...every((r) => {
        const concurrent = enqueueRate(r, 'concurrent');
        const bulk = enqueueRate(r, 'bulk');
        return concurrent !== null && bulk ? concurrent / bulk : null;
      }),
      target: sqliteInFlightTarget,
    },
  ];
}
