import { median } from '../metrics';
import { countLabel, NOT_APPLICABLE } from '../report';
import { appTransactionFigures, type AppTransactionFigure } from './postgres-app-transaction';
import type { PostgresBenchConfig } from './postgres-bench-config';
import type { PostgresSample } from './postgres-scenarios';
import type { PostgresRunnerResults } from './postgres-suite';

/** The libraries of the Postgres table, in column order. */
export const POSTGRES_THREADMILL = 'Threadmill';
export const POSTGRES_PEERS = ['BullMQ', 'pg-boss', 'graphile-worker'] as const;

type Cell = number | null | typeof NOT_APPLICABLE;

/** What one task cost in a measured window, medians over the repetitions. */
export interface PerTaskCost {
  roundTrips: number;
  clientCpuMicros: number;
  dbCpuMicros: number | null;
  walBytes: number;
}

/** One row of the Postgres table, judged. */
export interface PostgresRow {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  /** By library name (POSTGRES_THREADMILL and POSTGRES_PEERS). */
  values: Record<string, Cell>;
  /** The cost per task of the window each value came from, where the row is a window's rate. */
  costs?: Record<string, PerTaskCost | null>;
  /** The best peer of this run on this row, and Threadmill over it. */
  bestPeer: string | null;
  ratio: number | null;
  target: string | null;
  met: boolean | null;
  /** The 100-slot drain's stretch figure (2× the best peer): reported, not judged. */
  stretchMet?: boolean | null;
  /** Libraries with a drain of this row cut short at the time limit. */
  cutShort?: string[];
}

/** The backlog and held-horizon rows: at least this share of the plain drain. */
export const KEEPS_RATE_SHARE = 0.8;
/** The 100-slot drain's stretch: this many times the best peer. */
export const DRAIN_STRETCH = 2;

const perSecond = (s: PostgresSample): number => s.tasks / s.cost.seconds;

function medianRate(samples: readonly PostgresSample[] | undefined): number | null {
  return samples?.length ? median(samples.map(perSecond)) : null;
}

/** Per-task costs of the samples, medians (the database CPU when every sample has it). */
export function perTaskCost(samples: readonly PostgresSample[] | undefined): PerTaskCost | null {
  if (!samples?.length) return null;
  const of = (pick: (s: PostgresSample) => number): number =>
    median(samples.map((s) => pick(s) / s.tasks));
  const cpu = samples.map((s) => s.cost.dbCpuMicros);
  return {
    roundTrips: of((s) => s.cost.roundTrips),
    clientCpuMicros: of((s) => s.cost.clientCpuMicros),
    dbCpuMicros: cpu.every((c) => c !== null) ? of((s) => s.cost.dbCpuMicros as number) : null,
    walBytes: of((s) => s.cost.walBytes),
  };
}

/** Tasks/s over every slice together: the held-horizon figure. */
function heldRate(r: PostgresRunnerResults): number | null {
  const slices = r.heldHorizon?.slices ?? [];
  if (!slices.length) return null;
  const tasks = slices.reduce((sum, s) => sum + s.tasks, 0);
  return tasks / slices.reduce((sum, s) => sum + s.cost.seconds, 0);
}

/** A pickup percentile, null when a run did not see every task it sent (a backlog, not a pickup). */
function pickup(r: PostgresRunnerResults, field: 'p50Ms' | 'p95Ms' | 'p99Ms'): number | null {
  if (!r.latency.length || r.latency.some((s) => s.seen < s.sent)) return null;
  return median(r.latency.map((s) => s[field]));
}

const ratioOf = (a: number | null, b: number | null): number | null =>
  a === null || b === null || b === 0 ? null : a / b;

const sumOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined ? null : a + b;

interface RowSpec {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  value(r: PostgresRunnerResults): Cell;
  cost?(r: PostgresRunnerResults): PerTaskCost | null;
  /** The drains behind the value, to tell which were cut short. */
  samples?(r: PostgresRunnerResults): readonly PostgresSample[];
  /**
   * 'peers': ahead of every peer; 'share': at least KEEPS_RATE_SHARE; 'drain': ≥ best, stretch 2×;
   * 'atMostOne': at most 1; none: reported.
   */
  judge?: 'peers' | 'share' | 'drain' | 'atMostOne';
  /** Threadmill's alone: the peers' cells say they have nothing to measure there. */
  ownOnly?: true;
}

function specs(
  c: PostgresBenchConfig,
  pool: number[],
  appTransaction: AppTransactionFigure | null,
): RowSpec[] {
  const inApp = appTransaction ? appTransactionFigures(appTransaction) : null;
  const rate = (
    key: string,
    label: string,
    samples: (r: PostgresRunnerResults) => PostgresSample[] | undefined,
    judge: RowSpec['judge'] = 'peers',
  ): RowSpec => ({
    key,
    label,
    unit: 'tasks/s',
    better: 'higher',
    value: (r) => medianRate(samples(r)),
    cost: (r) => perTaskCost(samples(r)),
    samples: (r) => samples(r) ?? [],
    judge,
  });
  const heavy = c.heavySlots;
  const lifetime =
    (pick: (cost: PerTaskCost | null) => number | null | undefined) => (r: PostgresRunnerResults) =>
      sumOf(pick(perTaskCost(r.enqueue.concurrent)), pick(perTaskCost(r.drain[heavy])));
  return [
    rate('enqueue.sequential', 'enqueue, sequential', (r) => r.enqueue.sequential),
    rate(
      'enqueue.concurrent',
      `enqueue, ${c.enqueueInFlight} in flight`,
      (r) => r.enqueue.concurrent,
    ),
    rate('enqueue.bulk', `enqueue, bulk of ${c.bulkBatch}`, (r) => r.enqueue.bulk),
    ...c.drainSlots.map((slots) =>
      rate(
        `drain.${slots}`,
        `drain, ${slots} slot${slots === 1 ? '' : 's'} in-process`,
        (r) => r.drain[slots],
        slots === 100 ? 'drain' : 'peers',
      ),
    ),
    {
      key: 'drain.pool',
      label: c.pool
        ? `drain through the pool (${c.pool.processes} process × ${c.pool.threads} threads)`
        : 'drain through the pool',
      unit: 'tasks/s',
      better: 'higher',
      value: () => (pool.length ? median(pool) : null),
      ownOnly: true,
    },
    {
      key: 'appTransaction.ratio',
      label: "the app's transaction (its row) with an enqueue / without, synchronous_commit on",
      unit: '×',
      better: 'higher',
      value: () => inApp?.ratio ?? null,
      ownOnly: true,
    },
    {
      key: 'appTransaction.roundTrips',
      label: "statements an enqueue adds to the app's transaction",
      unit: 'round trips',
      better: 'lower',
      value: () => inApp?.extraRoundTrips ?? null,
      judge: 'atMostOne',
      ownOnly: true,
    },
    ...(['p50', 'p95', 'p99'] as const).map((p): RowSpec => ({
      key: `latency.${p}`,
      label: `pickup ${p} at ${c.latencyRate}/s`,
      unit: 'ms',
      better: 'lower',
      value: (r) => pickup(r, `${p}Ms`),
      judge: 'peers',
    })),
    {
      key: 'backlog',
      label: `drain against ${countLabel(c.backlogLarge)} waiting / against ${countLabel(c.backlogSmall)}`,
      unit: '×',
      better: 'higher',
      value: (r) =>
        ratioOf(medianRate(r.backlog[c.backlogLarge]), medianRate(r.backlog[c.backlogSmall])),
      cost: (r) => perTaskCost(r.backlog[c.backlogLarge]),
      samples: (r) => [...(r.backlog[c.backlogLarge] ?? []), ...(r.backlog[c.backlogSmall] ?? [])],
      judge: 'share',
    },
    {
      key: 'heldHorizon',
      label: `drain with the vacuum horizon held ${Math.round(c.horizonHoldMs / 1000)} s / plain drain`,
      unit: '×',
      better: 'higher',
      value: (r) => ratioOf(heldRate(r), medianRate(r.drain[heavy])),
      cost: (r) => perTaskCost(r.heldHorizon?.slices),
      samples: (r) => r.heldHorizon?.slices ?? [],
      judge: 'share',
    },
    {
      key: 'dbCpu',
      label: `database CPU per task (enqueued ${c.enqueueInFlight} in flight, drained at ${heavy} slots)`,
      unit: 'µs',
      better: 'lower',
      value: lifetime((cost) => cost?.dbCpuMicros),
      judge: 'peers',
    },
    {
      key: 'wal',
      label: `WAL per task (enqueued ${c.enqueueInFlight} in flight, drained at ${heavy} slots)`,
      unit: 'B',
      better: 'lower',
      value: lifetime((cost) => cost?.walBytes),
      judge: 'peers',
    },
    {
      key: 'roundTrips',
      label: `statements per task (enqueued ${c.enqueueInFlight} in flight, drained at ${heavy} slots)`,
      unit: 'round trips',
      better: 'lower',
      value: lifetime((cost) => cost?.roundTrips),
    },
  ];
}

/** The rows of the Postgres table: medians, Threadmill over the best peer, the target where one applies. */
export function buildPostgresRows(
  config: PostgresBenchConfig,
  results: Record<string, PostgresRunnerResults>,
  pool: number[],
  appTransaction: AppTransactionFigure | null = null,
): PostgresRow[] {
  return specs(config, pool, appTransaction).map((spec) => {
    const values: Record<string, Cell> = {};
    const costs: Record<string, PerTaskCost | null> = {};
    for (const name of [POSTGRES_THREADMILL, ...POSTGRES_PEERS]) {
      const r = results[name];
      // Threadmill's alone (its pool, the app's transaction): no peer has it to measure.
      values[name] =
        spec.ownOnly && name !== POSTGRES_THREADMILL ? NOT_APPLICABLE : r ? spec.value(r) : null;
      if (spec.cost) costs[name] = r ? spec.cost(r) : null;
    }
    const row = judge(spec, values, spec.cost ? costs : undefined);
    const cut = Object.entries(results).flatMap(([name, r]) =>
      spec.samples?.(r).some((sample) => sample.cutShort) ? [name] : [],
    );
    return cut.length ? { ...row, cutShort: cut } : row;
  });
}

function judge(
  spec: RowSpec,
  values: Record<string, Cell>,
  costs?: Record<string, PerTaskCost | null>,
): PostgresRow {
  const ours = typeof values[POSTGRES_THREADMILL] === 'number' ? values[POSTGRES_THREADMILL] : null;
  const peers = POSTGRES_PEERS.flatMap((name) =>
    typeof values[name] === 'number' ? [{ name, value: values[name] }] : [],
  );
  const best = peers.length
    ? peers.reduce((a, b) =>
        (spec.better === 'higher' ? b.value > a.value : b.value < a.value) ? b : a,
      )
    : null;
  const row: PostgresRow = {
    key: spec.key,
    label: spec.label,
    unit: spec.unit,
    better: spec.better,
    values,
    ...(costs && { costs }),
    bestPeer: best?.name ?? null,
    ratio: ratioOf(ours, best?.value ?? null),
    target: null,
    met: null,
  };
  const ahead = (a: number, b: number): boolean => (spec.better === 'higher' ? a > b : a < b);
  switch (spec.judge) {
    case 'peers':
      row.target = spec.better === 'higher' ? '> every peer' : '< every peer';
      row.met = ours === null || best === null ? null : ahead(ours, best.value);
      break;
    case 'drain':
      row.target = `≥ best peer (stretch ${DRAIN_STRETCH}×)`;
      row.met = ours === null || best === null ? null : ours >= best.value;
      row.stretchMet = ours === null || best === null ? null : ours >= DRAIN_STRETCH * best.value;
      break;
    case 'share':
      row.target = `≥ ${KEEPS_RATE_SHARE}`;
      row.met = ours === null ? null : ours >= KEEPS_RATE_SHARE;
      break;
    case 'atMostOne':
      row.target = '≤ 1';
      row.met = ours === null ? null : ours <= 1;
      break;
  }
  return row;
}
