import { NOT_APPLICABLE } from '../report';
import type { AppTransactionFigure } from './postgres-app-transaction';
import type { PostgresBenchConfig } from './postgres-bench-config';
import { postgresRowSpecs, ratioOf, type PostgresRowSpec } from './postgres-row-specs';
import type { PostgresRunnerResults } from './postgres-suite';

/** The libraries of the Postgres table, in column order. */
export const POSTGRES_THREADMILL = 'Threadmill';
export const POSTGRES_PEERS = ['BullMQ', 'pg-boss', 'graphile-worker'] as const;

/** A library's figure on a row: none measured, or none to measure (NOT_APPLICABLE). */
export type Cell = number | null | typeof NOT_APPLICABLE;

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

/** The rows of the Postgres table: medians, Threadmill over the best peer, the target where one applies. */
export function buildPostgresRows(
  config: PostgresBenchConfig,
  results: Record<string, PostgresRunnerResults>,
  pool: number[],
  appTransaction: AppTransactionFigure | null = null,
): PostgresRow[] {
  return postgresRowSpecs(config, pool, appTransaction).map((spec) => {
    const values: Record<string, Cell> = {};
    const costs: Record<string, PerTaskCost | null> = {};
    for (const name of [POSTGRES_THREADMILL, ...POSTGRES_PEERS]) {
      const r = results[name];
      // The pool and outbox rows are Threadmill's alone: no peer has a pool of processes or an outbox.
      values[name] =
        (spec.key === 'drain.pool' || spec.own) && name !== POSTGRES_THREADMILL
          ? NOT_APPLICABLE
          : r
            ? spec.value(r)
            : null;
      if (spec.cost) costs[name] = r ? spec.cost(r) : null;
    }
    const row = judge(spec, values, spec.cost ? costs : undefined);
    const ours = results[POSTGRES_THREADMILL];
    const value = values[POSTGRES_THREADMILL];
    if (spec.own?.target !== undefined) {
      row.target = spec.own.target;
      row.met = ours && typeof value === 'number' ? (spec.own.met?.(ours, value) ?? null) : null;
    }
    const cut = Object.entries(results).flatMap(([name, r]) =>
      spec.samples?.(r).some((sample) => sample.cutShort) ? [name] : [],
    );
    return cut.length ? { ...row, cutShort: cut } : row;
  });
}

function judge(
  spec: PostgresRowSpec,
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
  }
  return row;
}
