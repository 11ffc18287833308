import { QUICK } from '../../../bench/bench-config';
import { BULLMQ, buildFigures, THREADMILL } from '../../../bench/figures';
import type { WindowCost } from '../../../bench/metrics';
import { toReported, type FigureRow, type ReportedRow } from '../../../bench/report';
import type { DrainSample } from '../../../bench/scenarios';
import { completeResults, type RunnerResults } from '../../../bench/suite';

/** A window of `seconds` that made `roundTrips` round trips and ran scripts for `scriptMicros`. */
export function cost(seconds: number, roundTrips = 0, scriptMicros = 0): WindowCost {
  return {
    seconds,
    clientCpuMicros: 1000,
    redisCpuMicros: 1000,
    roundTrips,
    blockingCalls: 0,
    redisCommands: 100,
    redisCommandCalls: {},
    scriptMicros,
  };
}

export interface Figures {
  /** Bulk enqueue rate (tasks/s). */
  bulk: number;
  /** Pickup p99 (ms). */
  p99: number;
  /** Redis memory per waiting task (B). */
  memory: number;
  /** Round trips per task in the drains. */
  roundTrips?: number;
  roundTripsCounted?: boolean;
}

/** Threadmill's figures where a test judges some other row. */
export const THREADMILL_FIGURES: Figures = { bulk: 100_000, p99: 1, memory: 600 };
/** A Bee-Queue behind Threadmill on bulk enqueue, ahead of it on memory. */
export const BEE_QUEUE_FIGURES: Figures = { bulk: 50_000, p99: 2, memory: 250 };
export const SQLITE_FIGURES: Figures = { bulk: 40_000, p99: 3, memory: 0 };

/** Results of one runner whose figures under test are exactly `f`. */
export function results(f: Figures): RunnerResults {
  const tasks = 1000;
  const drain = (): DrainSample[] => [
    { tasks, waitingBefore: tasks, cost: cost(1, (f.roundTrips ?? 1) * tasks) },
  ];
  // The samples no test here sets are empty, as in a report that lacks them.
  return completeResults({
    drain: Object.fromEntries(QUICK.drainSlots.map((slots) => [slots, drain()])),
    enqueue: { bulk: { tasks, costs: [cost(tasks / f.bulk)] } },
    latency: [
      { sent: 100, seen: 100, p50Ms: f.p99 / 4, p95Ms: f.p99 / 2, p99Ms: f.p99, maxMs: f.p99 },
    ],
    memoryPerTaskBytes: f.memory,
    roundTripsCounted: f.roundTripsCounted ?? true,
  });
}

/** Threadmill's results with THREADMILL_FIGURES and `more` over them. */
export function threadmillWith(more: Partial<RunnerResults>): RunnerResults {
  return { ...results(THREADMILL_FIGURES), ...more };
}

export function row(rows: readonly FigureRow[], key: string): ReportedRow {
  const found = rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return toReported(found);
}

export const bullmq = results({ bulk: 25_000, p99: 2.5, memory: 700 });

/** The row `key` of a run of `threadmill` beside `bullmq` alone. */
export function rowBesideBullmq(
  threadmill: RunnerResults,
  key: string,
  config = QUICK,
): ReportedRow {
  return row(buildFigures(config, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}), key);
}
