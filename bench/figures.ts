import type { BenchConfig } from './bench-config';
import { median, type WindowCost } from './metrics';
import { countLabel, NOT_APPLICABLE, type FigureRow, type Target } from './report';
import type { DrainSample } from './scenarios';
import { cliStartRows } from './cli-start-figures';
import { dashboardPaintRow } from './dashboard-figures';
import { enqueueRows } from './enqueue-figures';
import { progressCpuRow } from './progress-figures';
import { roundTripLimitRow } from './round-trip-figures';
import { idleSchedulePassRow } from './schedule-figures';
import type { RunnerResults } from './suite';
import { waitRow } from './wait-figures';
import {
  aheadOfBothPeers,
  atLeastBullmq,
  atLeastRatio,
  atMost,
  atMostRatio,
  memoryTarget,
  pickupTarget,
} from './targets';

export { BEE_QUEUE_REFERENCE, bulkEnqueueTarget, memoryTarget, pickupTarget } from './targets';

export const THREADMILL = 'Threadmill';
export const BULLMQ = 'BullMQ';
/** Bee-Queue 2.0 (bench/bee-queue.runner.ts), the other peer; `--only bee-queue`. */
export const BEE_QUEUE = 'Bee-Queue';
/** Threadmill on the SQLite backend (bench/sqlite.runner.ts). */
export const SQLITE = 'SQLite';

/** Tasks/s of a pool run (`--exit-empty`), keyed `p<processes>t<threads>[f<prefetch>]`. */
export type PoolResults = Record<string, Record<string, number[]>>;

/** The PoolResults key of a pool run. */
export function poolKey(processes: number, threads: number, prefetch = 0): string {
  return `p${processes}t${threads}${prefetch > 0 ? `f${prefetch}` : ''}`;
}

/** 100 slots in one process: ≥ 2.5× BullMQ; one slot with a task fetched ahead: ≥ BullMQ. */
function poolTarget(processes: number, threads: number, prefetch: number): Target | undefined {
  if (processes !== 1) return undefined;
  if (threads === 100 && prefetch === 0) return atLeastRatio(2.5);
  if (threads === 1 && prefetch > 0) return atLeastBullmq;
  return undefined;
}

/** 100 slots in-process: ≥ 3× BullMQ; one slot: ahead of both peers. */
function inProcessTarget(slots: number): Target | undefined {
  if (slots === 100) return atLeastRatio(3);
  if (slots === 1) return aheadOfBothPeers;
  return undefined;
}

type Metric = (tasks: number, cost: WindowCost) => number;
const perSecond: Metric = (tasks, cost) => tasks / cost.seconds;
const roundTrips: Metric = (tasks, cost) => cost.roundTrips / tasks;
const commands: Metric = (tasks, cost) => cost.redisCommands / tasks;
const clientCpu: Metric = (tasks, cost) => cost.clientCpuMicros / tasks;
const redisCpu: Metric = (tasks, cost) => cost.redisCpuMicros / tasks;

function medianOf(samples: readonly DrainSample[] | undefined, metric: Metric): number | null {
  if (!samples?.length) return null;
  return median(samples.map((s) => metric(s.tasks, s.cost)));
}

/** Round trips of a runner whose client the counter sees; null (not measured) otherwise. */
function roundTripsOf(r: RunnerResults, slots: number): number | null {
  return r.roundTripsCounted === false ? null : medianOf(r.drain[slots], roundTrips);
}

/**
 * Turns the raw results into the rows of the one table: medians, the ratio
 * per figure and the target where a figure has one. Figures
 * counted by Redis (round trips, Redis commands, Redis CPU and memory) are
 * `n/a` for SQLite, which has no server and no network hop. Bee-Queue has a
 * column in every in-process row (its round trips are not counted: see
 * BeeQueueRunner) and none in the pool rows; the targets that name it are
 * judged on its figure of this run, or on the reference figure when it was not run.
 */
export function buildFigures(
  config: BenchConfig,
  results: Record<string, RunnerResults>,
  pool: PoolResults,
): FigureRow[] {
  const tm = results[THREADMILL];
  const bq = results[BULLMQ];
  const bee = results[BEE_QUEUE];
  const sq = results[SQLITE];
  const rows: FigureRow[] = [];
  const every = (pick: (r: RunnerResults) => number | null) => ({
    threadmill: tm ? pick(tm) : null,
    bullmq: bq ? pick(bq) : null,
    beeQueue: bee ? pick(bee) : null,
    sqlite: sq ? pick(sq) : null,
  });
  const redisOnly = (pick: (r: RunnerResults) => number | null) => ({
    ...every(pick),
    sqlite: NOT_APPLICABLE,
  });

  for (const slots of config.drainSlots) {
    const label = `drain ${config.drainTasks / 1000}k, ${slots} slot${slots > 1 ? 's' : ''}, in-process`;
    rows.push({
      key: `drain.inProcess.${slots}`,
      label,
      unit: 'tasks/s',
      better: 'higher',
      ...every((r) => medianOf(r.drain[slots], perSecond)),
      target: inProcessTarget(slots),
    });
    if (slots === 1) rows.push(roundTripLimitRow(label, redisOnly));
  }
  for (const [key, byRunner] of Object.entries(pool)) {
    const threadmill = byRunner[THREADMILL]?.length ? median(byRunner[THREADMILL]) : null;
    const bullmq = byRunner[BULLMQ]?.length ? median(byRunner[BULLMQ]) : null;
    const run = config.poolRuns.find((r) => poolKey(r.processes, r.threads, r.prefetch) === key);
    if (!run) continue;
    const { processes, threads, tasks, prefetch = 0 } = run;
    const prefetchFlag = prefetch > 0 ? ` --prefetch ${prefetch}` : '';
    rows.push({
      key: `drain.pool.${key}`,
      label: `drain ${tasks / 1000}k, pool --processes ${processes} --threads ${threads}${prefetchFlag}`,
      unit: 'tasks/s',
      better: 'higher',
      threadmill,
      bullmq,
      // Bee-Queue has no pool CLI to compare with.
      beeQueue: null,
      // Not run on SQLite: the pool figure reads the queue's length from Redis.
      sqlite: null,
      target: poolTarget(processes, threads, prefetch),
    });
  }

  rows.push(...enqueueRows(config, every));

  for (const p of ['p50', 'p95', 'p99'] as const) {
    const values = every((r) =>
      r.latency.length > 0 ? median(r.latency.map((sample) => sample[`${p}Ms`])) : null,
    );
    rows.push({
      key: `latency.${p}`,
      label: `pickup latency ${p} at ${config.latencyRate}/s`,
      unit: 'ms',
      better: 'lower',
      ...values,
      target: pickupTarget(p, values.beeQueue),
    });
  }

  const costSlots = Math.max(...config.drainSlots);
  const minSlots = Math.min(...config.drainSlots);
  const memory = redisOnly((r) => r.memoryPerTaskBytes);
  rows.push(
    {
      key: `roundTrips.${costSlots}`,
      label: `round trips per task, ${costSlots} slots`,
      unit: 'count',
      better: 'lower',
      ...redisOnly((r) => roundTripsOf(r, costSlots)),
      target: atMost(0.2, '≤ 0.2'),
    },
    {
      key: `roundTrips.${minSlots}`,
      label: `round trips per task, ${minSlots} slot`,
      unit: 'count',
      better: 'lower',
      ...redisOnly((r) => roundTripsOf(r, minSlots)),
    },
    {
      key: `commands.${costSlots}`,
      label: `Redis commands per task (Lua included), ${costSlots} slots`,
      unit: 'count',
      better: 'lower',
      ...redisOnly((r) => medianOf(r.drain[costSlots], commands)),
    },
    {
      key: `clientCpu.${costSlots}`,
      label: `worker CPU per task, ${costSlots} slots`,
      unit: 'µs',
      better: 'lower',
      ...every((r) => medianOf(r.drain[costSlots], clientCpu)),
      target: atMostRatio(1 / 3, '≤ ⅓ of BullMQ'),
    },
    {
      key: `redisCpu.${costSlots}`,
      label: `Redis CPU per task, ${costSlots} slots`,
      unit: 'µs',
      better: 'lower',
      ...redisOnly((r) => medianOf(r.drain[costSlots], redisCpu)),
    },
    {
      key: 'memory.perWaitingTask',
      label: `Redis memory per waiting task (${config.payloadBytes} B payload)`,
      unit: 'B',
      better: 'lower',
      ...memory,
      target: memoryTarget(memory.threadmill, memory.beeQueue),
    },
    idleSchedulePassRow(config, redisOnly),
    progressCpuRow(config, every),
    waitRow(config, redisOnly),
    dashboardPaintRow(config, redisOnly),
    ...cliStartRows(config, redisOnly),
  );

  const waitingLabel = (backlog: number): string =>
    `${countLabel(backlog)} waiting, ${config.backlogSlots} slots`;
  for (const backlog of config.backlogs) {
    rows.push({
      key: `backlog.${backlog}`,
      label: `drain with ${waitingLabel(backlog)}`,
      unit: 'tasks/s',
      better: 'higher',
      ...every((r) => medianOf(r.backlog[backlog]?.settled, perSecond)),
    });
  }
  const smallest = Math.min(...config.backlogs);
  const largest = Math.max(...config.backlogs);
  rows.push({
    key: `backlog.${largest}.fresh`,
    label: `drain with ${waitingLabel(largest)}, right after the fill`,
    unit: 'tasks/s',
    better: 'higher',
    ...every((r) => {
      const fresh = r.backlog[largest]?.fresh;
      return fresh ? perSecond(fresh.tasks, fresh.cost) : null;
    }),
  });
  const flatness = (r: RunnerResults): number | null => {
    const small = medianOf(r.backlog[smallest]?.settled, perSecond);
    const large = medianOf(r.backlog[largest]?.settled, perSecond);
    return small && large ? large / small : null;
  };
  rows.push({
    key: 'backlog.flatness',
    label: `backlog ${largest / 1e3}k vs ${smallest / 1e3}k, throughput kept`,
    unit: 'ratio',
    better: 'higher',
    ...every(flatness),
    target: {
      text: largest >= 1e6 ? '1M vs 10k within 20% (≥ 0.8)' : 'within 20% (≥ 0.8; full run: 1M)',
      check: (row) => (row.threadmill === null ? null : row.threadmill >= 0.8),
    },
  });
  return rows;
}
