import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import type { BenchConfig } from './bench-config';
import type { PostgresReport } from './postgres/postgres-page';

/** Which way a figure improves. */
export type Better = 'higher' | 'lower';

/** How a target is judged from one row. */
export interface Target {
  /** The target in a few words, readable on its own ("≥ 3× BullMQ"). */
  text: string;
  /** true = met, false = missed, null = cannot be judged from this run. */
  check(row: FigureRow): boolean | null;
}

/** A figure that means nothing for a runner (a Redis counter of the SQLite backend), printed as such. */
export const NOT_APPLICABLE = 'n/a' as const;

/** A count as the page writes it: "20k", "1M", "300k", "2000". */
export function countLabel(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e4 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

export interface FigureRow {
  key: string;
  label: string;
  unit: string;
  better: Better;
  /** Threadmill on Redis. */
  threadmill: number | null;
  bullmq: number | null;
  /** Bee-Queue 2.0 in this run; null when not measured (not run, a pool row, or its round trips). */
  beeQueue: number | null;
  /** Threadmill on SQLite; null when not measured in this run. */
  sqlite: number | null | typeof NOT_APPLICABLE;
  /** Judges `threadmill` (on Redis) against `bullmq`, and against `beeQueue` where the target names Bee-Queue. */
  target?: Target;
}

export interface ReportedRow extends Omit<FigureRow, 'target'> {
  /** Threadmill (Redis) / BullMQ. */
  ratio: number | null;
  /** Threadmill (SQLite) / BullMQ. */
  sqliteRatio: number | null;
  target: string | null;
  met: boolean | null;
}

export function ratioOf(row: Pick<FigureRow, 'threadmill' | 'bullmq'>): number | null {
  if (row.threadmill === null || row.bullmq === null || row.bullmq === 0) return null;
  return row.threadmill / row.bullmq;
}

export function toReported(row: FigureRow): ReportedRow {
  const { target, ...rest } = row;
  return {
    ...rest,
    ratio: ratioOf(row),
    sqliteRatio:
      typeof row.sqlite === 'number' ? ratioOf({ ...row, threadmill: row.sqlite }) : null,
    target: target?.text ?? null,
    met: target?.check(row) ?? null,
  };
}

/** 15400 -> "15.4k", 0.0123 -> "0.0123", 714 -> "714"; not measured -> "–". */
export function formatNumber(value: number | null | typeof NOT_APPLICABLE): string {
  if (value === NOT_APPLICABLE) return value;
  if (value === null || Number.isNaN(value)) return '–';
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

function formatRatio(ratio: number | null): string {
  return ratio === null ? '–' : `${ratio.toFixed(2)}×`;
}

function formatMet(met: boolean | null): string {
  if (met === null) return '';
  return met ? 'met' : '**missed**';
}

/**
 * One Markdown table (it reads fine in a terminal, and docs/benchmarks.md
 * carries it as is). Bee-Queue's column follows BullMQ's ('–' where it was not
 * measured); the ratio is Threadmill (Redis) / BullMQ. The SQLite columns
 * come last, after the target that judges the Redis figures, and only when
 * this run measured SQLite.
 */
export function renderTable(rows: readonly ReportedRow[]): string {
  const withSqlite = rows.some((row) => typeof row.sqlite === 'number');
  const header = [
    'figure',
    'Threadmill (Redis)',
    'BullMQ',
    'Bee-Queue',
    'Threadmill / BullMQ',
    'target',
    'result',
    ...(withSqlite ? ['Threadmill (SQLite)', 'SQLite / BullMQ'] : []),
  ];
  const lines = rows.map((row) => [
    `${row.label} (${row.unit}, ${row.better} is better)`,
    formatNumber(row.threadmill),
    formatNumber(row.bullmq),
    formatNumber(row.beeQueue),
    formatRatio(row.ratio),
    row.target ?? '',
    formatMet(row.met),
    ...(withSqlite
      ? [
          formatNumber(row.sqlite),
          row.sqlite === NOT_APPLICABLE ? NOT_APPLICABLE : formatRatio(row.sqliteRatio),
        ]
      : []),
  ]);
  const table = [header, header.map(() => '---'), ...lines];
  return table.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Who, where and when: what a run records about itself beside its figures. */
export interface BenchMeta {
  /** When the run ended (ISO 8601). */
  date: string;
  /** When it started; absent in results written before it was recorded. */
  startedAt?: string;
  mode: BenchConfig['mode'];
  /** Only some figures (`--only`, `--no-pool`, `--pool-only`); absent means a whole run. */
  partial?: boolean;
  command: string;
  /** `git rev-parse --short HEAD` when the run started. */
  commit: string | null;
  /** Uncommitted changes outside bench/results and docs/benchmarks.md; null when git could not tell. */
  dirty?: boolean | null;
  node: string;
  redis: string;
  threadmill?: string;
  bullmq: string;
  beeQueue?: string;
  sqlite?: { sqlite: string; betterSqlite3: string; database: string };
  /** "<count> × <model>". */
  cpus: string;
  cpuModel?: string;
  /** Logical CPUs, as Node counts them. */
  cores?: number;
  memoryBytes?: number;
  os?: string;
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  roundTripMethod: string;
  commandMethod: string;
}

/** What `bench/results/latest.json` holds, and what docs/benchmarks.md is rendered from. */
export interface BenchReport {
  meta: BenchMeta;
  config: BenchConfig;
  figures: ReportedRow[];
  raw?: unknown;
  /** The Postgres rows, when the run had them. */
  postgres?: PostgresReport;
}

/** Whether a report is of a whole full run: only such a run may stand for the benchmark. */
export function isWholeFullRun(meta: Pick<BenchMeta, 'mode' | 'partial'>): boolean {
  return meta.mode === 'full' && meta.partial !== true;
}
