import { median } from '../metrics';
import { countLabel } from '../report';
import { appTransactionFigures, type AppTransactionFigure } from './postgres-app-transaction';
import type { PostgresBenchConfig } from './postgres-bench-config';
import type { OutboxSample } from './outbox-bench';
import type { Cell, PerTaskCost } from './postgres-figures';
import type { PostgresSample } from './postgres-scenarios';
import type { PostgresRunnerResults } from './postgres-suite';

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

/** a / b, null where either is missing or b is 0. */
export const ratioOf = (a: number | null, b: number | null): number | null =>
  a === null || b === null || b === 0 ? null : a / b;

const sumOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined ? null : a + b;

/** How one row of the Postgres table is read from the results, and judged. */
export interface PostgresRowSpec {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  value(r: PostgresRunnerResults): Cell;
  cost?(r: PostgresRunnerResults): PerTaskCost | null;
  /** The drains behind the value, to tell which were cut short. */
  samples?(r: PostgresRunnerResults): readonly PostgresSample[];
  /** 'peers': ahead of every peer; 'share': at least KEEPS_RATE_SHARE; 'drain': ≥ best, stretch 2×; none: reported. */
  judge?: 'peers' | 'share' | 'drain';
  /** A row of Threadmill's alone (no peer has it), judged against its own target when it has one. */
  own?: { target?: string; met?(r: PostgresRunnerResults, value: number): boolean | null };
}

/** The outbox's commit-to-Redis p99 target (ms). */
export const OUTBOX_P99_TARGET_MS = 50;
/** The outbox's bulk rate: at least this share of the Postgres backend's own bulk enqueue. */
export const OUTBOX_BULK_SHARE = 0.5;

function outboxFigure(
  r: PostgresRunnerResults,
  pick: (sample: OutboxSample) => number,
): number | null {
  return r.outbox?.length ? median(r.outbox.map(pick)) : null;
}

/** The rows of the Postgres table, in order. */
export function postgresRowSpecs(
  c: PostgresBenchConfig,
  pool: number[],
  appTransaction: AppTransactionFigure | null,
): PostgresRowSpec[] {
  const inApp = appTransaction ? appTransactionFigures(appTransaction) : null;
  const rate = (
    key: string,
    label: string,
    samples: (r: PostgresRunnerResults) => PostgresSample[] | undefined,
    judge: PostgresRowSpec['judge'] = 'peers',
  ): PostgresRowSpec => ({
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
    },
    {
      key: 'appTransaction.ratio',
      label: "the app's transaction (its row) with an enqueue / without, synchronous_commit on",
      unit: '×',
      better: 'higher',
      value: () => inApp?.ratio ?? null,
      own: {},
    },
    {
      key: 'appTransaction.roundTrips',
      label: "statements an enqueue adds to the app's transaction",
      unit: 'round trips',
      better: 'lower',
      value: () => inApp?.extraRoundTrips ?? null,
      own: { target: '≤ 1', met: (_, value) => value <= 1 },
    },
    ...(['p50', 'p95', 'p99'] as const).map((p): PostgresRowSpec => ({
      key: `latency.${p}`,
      label: `pickup ${p} at ${c.latencyRate}/s`,
      unit: 'ms',
      better: 'lower',
      value: (r) => pickup(r, `${p}Ms`),
      judge: 'peers',
    })),
    {
      key: 'outbox.p50',
      label: `outbox of a Redis alias, commit to Redis p50 at ${c.latencyRate}/s`,
      unit: 'ms',
      better: 'lower',
      value: (r) => outboxFigure(r, (s) => s.p50Ms),
      own: {},
    },
    {
      key: 'outbox.p99',
      label: `outbox of a Redis alias, commit to Redis p99 at ${c.latencyRate}/s`,
      unit: 'ms',
      better: 'lower',
      value: (r) => outboxFigure(r, (s) => s.p99Ms),
      own: {
        target: `≤ ${OUTBOX_P99_TARGET_MS} ms`,
        met: (_r, value) => value <= OUTBOX_P99_TARGET_MS,
      },
    },
    {
      key: 'outbox.bulk',
      label: `outbox of a Redis alias, bulks of ${c.bulkBatch} moved to Redis`,
      unit: 'tasks/s',
      better: 'higher',
      value: (r) => outboxFigure(r, (s) => s.bulkPerSecond),
      own: {
        target: `≥ ${OUTBOX_BULK_SHARE}× Threadmill's bulk enqueue`,
        met: (r, value) => {
          const bulk = medianRate(r.enqueue.bulk);
          return bulk === null ? null : value >= OUTBOX_BULK_SHARE * bulk;
        },
      },
    },
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
