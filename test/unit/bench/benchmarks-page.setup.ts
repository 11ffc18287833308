import { FULL } from '../../../bench/bench-config';
import type { BenchMeta, BenchReport, ReportedRow } from '../../../bench/report';

/** A row of the table: `fields` over a figure in tasks/s that nothing measured. */
export function figure(
  fields: Partial<ReportedRow> & Pick<ReportedRow, 'key' | 'label'>,
): ReportedRow {
  return {
    unit: 'tasks/s',
    better: 'higher',
    threadmill: null,
    bullmq: null,
    beeQueue: null,
    sqlite: null,
    ratio: null,
    sqliteRatio: null,
    target: null,
    met: null,
    ...fields,
  };
}

export const FIGURES: ReportedRow[] = [
  figure({
    key: 'drain.inProcess.100',
    label: 'drain 20k, 100 slots, in-process',
    threadmill: 40_000,
    bullmq: 10_000,
    beeQueue: 15_000,
    sqlite: 9000,
    ratio: 4,
    sqliteRatio: 0.9,
    target: '≥ 3× BullMQ',
    met: true,
  }),
  figure({
    key: 'latency.p99',
    label: 'pickup latency p99 at 200/s',
    unit: 'ms',
    better: 'lower',
    threadmill: 1.6,
    bullmq: 1.7,
    beeQueue: 1.2,
    sqlite: 6.4,
    ratio: 1.6 / 1.7,
    sqliteRatio: 6.4 / 1.7,
    target: '≤ Bee-Queue',
    met: false,
  }),
  figure({
    key: 'roundTrips.100',
    label: 'round trips per task, 100 slots',
    unit: 'count',
    better: 'lower',
    threadmill: 0.04,
    bullmq: 1,
    sqlite: 'n/a',
    ratio: 0.04,
    target: '≤ 0.2',
    met: true,
  }),
];

export const META: BenchMeta = {
  date: '2026-12-01T10:40:12.000Z',
  startedAt: '2026-12-01T10:21:03.000Z',
  mode: 'full',
  partial: false,
  command: 'npm run bench',
  commit: 'abc1234',
  dirty: false,
  node: 'v20.20.2',
  redis: '7.0.15',
  threadmill: '0.2.0',
  bullmq: '6.7.0',
  beeQueue: '2.0.0',
  sqlite: { sqlite: '3.53.2', betterSqlite3: '12.11.1', database: 'a file' },
  cpus: '2 × Example CPU @ 3.0GHz',
  cpuModel: 'Example CPU @ 3.0GHz',
  cores: 2,
  memoryBytes: 8 * 2 ** 30,
  os: 'Debian GNU/Linux 12 (bookworm), Linux 6.1.0',
  loadAverageBefore: [0.31, 0.2, 0.1],
  loadAverageAfter: [1.9, 1.2, 0.6],
  roundTripMethod: 'client side',
  commandMethod: 'server side',
};

export const REPORT: BenchReport = { meta: META, config: FULL, figures: FIGURES };

/** The lines of the page section under `heading`, up to the next `## `. */
export function section(page: string, heading: string): string {
  const [, after = ''] = page.split(`\n${heading}\n`);
  return after.split('\n## ')[0];
}

/** Expects `text` to contain each of `parts` (a failure names the part missing). */
export function expectEach(text: string, parts: readonly string[]): void {
  for (const part of parts) expect(text).toContain(part);
}
