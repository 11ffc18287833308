import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FULL } from '../../../bench/bench-config';
import {
  BENCHMARKS_PAGE,
  benchmarksPagePath,
  renderBenchmarksPage,
  writeBenchmarksPage,
} from '../../../bench/benchmarks-page';
import { missedTargetReasons } from '../../../bench/missed-targets';
import type { BenchMeta, BenchReport, ReportedRow } from '../../../bench/report';
import { CLI_START_ROW_KEYS } from '../../../bench/cli-start-figures';
import { BACKEND_LEVEL_ROW_KEY } from '../../../bench/enqueue-figures';
import { ROUND_TRIP_LIMIT_ROW_KEY } from '../../../bench/round-trip-figures';
import { IDLE_SCHEDULE_PASS_KEY } from '../../../bench/schedule-figures';

function figure(fields: Partial<ReportedRow> & Pick<ReportedRow, 'key' | 'label'>): ReportedRow {
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

const FIGURES: ReportedRow[] = [
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

const META: BenchMeta = {
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

const REPORT: BenchReport = { meta: META, config: FULL, figures: FIGURES };

/** The lines of the page section under `heading`, up to the next `## `. */
function section(page: string, heading: string): string {
  const [, after = ''] = page.split(`\n${heading}\n`);
  return after.split('\n## ')[0];
}

describe('docs/benchmarks.md', () => {
  const page = renderBenchmarksPage(REPORT);

  it('has the title, the run, the results, how each figure is taken and why the scripts are shaped so, in that order', () => {
    const headings = page.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      '# Benchmarks',
      '## The run',
      '## Results',
      '## How each figure is taken',
      '## Why the Redis scripts are shaped as they are',
    ]);
  });

  it('says why the Redis scripts are shaped as they are in the same words for every run', () => {
    const why = (report: BenchReport): string =>
      section(renderBenchmarksPage(report), '## Why the Redis scripts are shaped as they are');
    const text = why(REPORT);
    for (const choice of [
      '**Running sets start as skiplists**',
      '**No call that would change nothing**',
      '**Few tables on the pickup path**',
    ]) {
      expect(text).toContain(`- ${choice} `);
    }
    // It names the rows that show each choice; the figures are the table's, never its own.
    expect(text).not.toMatch(/\d\s*(µs|us|ms)\b/);
    expect(why({ ...REPORT, figures: FIGURES.slice(0, 1) })).toBe(text);
  });

  it('names the machine, the versions, the date and the commit it measured', () => {
    const run = section(page, '## The run');
    expect(run).toContain('- **Date**: 2026-12-01 10:21–10:40 UTC');
    expect(run).toContain('- **Commit measured**: `abc1234`, clean working tree');
    expect(run).toContain('- **CPU**: Example CPU @ 3.0GHz, 2 cores');
    expect(run).toContain('- **Memory**: 8.0 GiB');
    expect(run).toContain('- **OS**: Debian GNU/Linux 12 (bookworm), Linux 6.1.0');
    expect(run).toContain('- **Node**: v20.20.2');
    expect(run).toContain('- **Redis**: 7.0.15');
    expect(run).toContain('- **Threadmill**: 0.2.0');
    expect(run).toContain('- **BullMQ**: 6.7.0');
    expect(run).toContain('- **Bee-Queue**: 2.0.0');
    expect(run).toContain('- **SQLite**: 3.53.2 (better-sqlite3 12.11.1)');
  });

  it('says when the tree was dirty', () => {
    const dirty = renderBenchmarksPage({ ...REPORT, meta: { ...META, dirty: true } });
    expect(section(dirty, '## The run')).toContain(
      '`abc1234`, with uncommitted changes in the working tree',
    );
  });

  it('puts every figure in one table with its ratios, target and result', () => {
    const results = section(page, '## Results');
    const table = results.split('\n').filter((line) => line.startsWith('|'));
    expect(table).toHaveLength(2 + FIGURES.length);
    const cells = (line: string): string[] =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim());
    expect(cells(table[0])).toEqual([
      'figure',
      'Threadmill (Redis)',
      'BullMQ',
      'Bee-Queue',
      'Threadmill / BullMQ',
      'target',
      'result',
      'Threadmill (SQLite)',
      'SQLite / BullMQ',
    ]);
    expect(cells(table[2])).toEqual([
      'drain 20k, 100 slots, in-process (tasks/s, higher is better)',
      '40.0k',
      '10.0k',
      '15.0k',
      '4.00×',
      '≥ 3× BullMQ',
      'met',
      '9000',
      '0.90×',
    ]);
    expect(cells(table[3]).slice(5, 7)).toEqual(['≤ Bee-Queue', '**missed**']);
    expect(cells(table[4]).slice(-2)).toEqual(['n/a', 'n/a']);
    expect(results).toContain(
      'Targets met: 2 of 3; missed: pickup latency p99 at 200/s (≤ Bee-Queue).',
    );
  });

  it('explains every kind of figure in the table', () => {
    const how = section(page, '## How each figure is taken');
    for (const figureName of [
      '**drain, in-process**',
      '**drain, pool**',
      '**enqueue**',
      '**pickup latency**',
      '**round trips per task**',
      '**Redis commands per task**',
      '**worker CPU / Redis CPU per task**',
      '**Redis memory per waiting task**',
      '**backlog**',
      '**Bee-Queue column**',
      '**Threadmill (SQLite) columns**',
      '**targets**',
    ]) {
      expect(how).toContain(`- ${figureName}: `);
    }
    // The sizes come from the run's configuration.
    expect(how).toContain('20k tasks enqueued first');
    expect(how).toContain('after enqueuing 100k tasks with a 100-character');
  });

  it('says the enqueue rows go through TaskService, the peers through their public calls', () => {
    const how = section(page, '## How each figure is taken').replace(/\s+/g, ' ');
    expect(how).toContain('Threadmill through `TaskService.enqueue` and `enqueueMany`');
    expect(how).toContain('BullMQ through `Queue.add` and `addBulk`');
    expect(how).toContain('Bee-Queue through `createJob().save()` and `saveAll`');
    expect(how).toContain('The backend-level row runs the same 100 in flight below TaskService');
  });

  it('names the targets as decided: memory against BullMQ, no fixed byte limit', () => {
    const targets = section(page, '## How each figure is taken')
      .replace(/\s+/g, ' ')
      .split('- **targets**: ')[1];
    expect(targets).toContain("in no more than BullMQ's of the same run");
    expect(targets).toContain(
      'its distance from Bee-Queue’s (this run’s, else the reference 280 B)',
    );
    expect(targets).not.toContain('400 B');
    expect(targets).not.toContain('sequential');
  });

  it('explains the maintenance pass row when the table has it, with the run’s sizes', () => {
    const passRow = figure({
      key: IDLE_SCHEDULE_PASS_KEY,
      label: 'maintenance pass, 1,000 schedules none due: Redis time per pass',
      unit: 'µs',
      better: 'lower',
      threadmill: 40,
      sqlite: 'n/a',
      target: '< 1000 µs',
      met: true,
    });
    const withRow = renderBenchmarksPage({ ...REPORT, figures: [...FIGURES, passRow] });
    const how = section(withRow, '## How each figure is taken');
    expect(how).toContain('- **maintenance pass, schedules**: 1000 schedules stored');
    expect(how).toContain('then 2000 times the schedule tick');
    // A report from before the row has no sizes for it to name.
    expect(section(page, '## How each figure is taken')).not.toContain('maintenance pass');
  });

  it('marks what a report did not record instead of guessing it', () => {
    // As a report from before these fields were recorded.
    const older: BenchMeta = { ...META };
    for (const field of [
      'cpuModel',
      'cores',
      'memoryBytes',
      'os',
      'startedAt',
      'dirty',
      'threadmill',
    ] as const) {
      delete older[field];
    }
    const run = section(renderBenchmarksPage({ ...REPORT, meta: older }), '## The run');
    expect(run).toContain('- **Date**: 2026-12-01 10:40 UTC (end of the run)');
    expect(run).toContain('`abc1234` (working tree state not recorded)');
    expect(run).toContain('- **CPU**: Example CPU @ 3.0GHz, 2 cores');
    expect(run).toContain('- **Memory**: not recorded');
    expect(run).toContain('- **OS**: not recorded');
    expect(run).toContain('- **Threadmill**: not recorded');
  });

  it('keeps prose within 100 columns without splitting a code span', () => {
    const prose = page
      .split('\n')
      .filter((line) => !line.startsWith('|') && !line.startsWith('<!--'))
      .filter((line) => !/^`[^`]*`$/.test(line));
    expect(prose.filter((line) => line.length > 100)).toEqual([]);
    for (const line of prose) expect((line.match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('writes the page as Prettier formats it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'threadmill-benchmarks-page-'));
    try {
      const path = join(folder, 'benchmarks.md');
      await writeBenchmarksPage(path, REPORT);
      const written = readFileSync(path, 'utf8');
      expect(written.startsWith('# Benchmarks\n')).toBe(true);
      expect(written).toContain('## How each figure is taken');
      // Only the table's padding may change.
      const unpadded = (text: string): string =>
        text
          .split('\n')
          .map((line) =>
            line.startsWith('|') ? line.replace(/ +/g, ' ').replace(/-+/g, '-') : line,
          )
          .join('\n')
          .trim();
      expect(unpadded(written)).toBe(unpadded(page));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('where a run writes docs/benchmarks.md', () => {
  const root = '/checkout';
  const latest = '/checkout/bench/results/latest.json';

  it('is docs/benchmarks.md for a whole full run into latest.json', () => {
    expect(benchmarksPagePath(root, { quick: false, partial: false, out: latest })).toBe(
      join(root, BENCHMARKS_PAGE),
    );
  });

  it('is nowhere for a quick run, a partial run or a report written elsewhere', () => {
    const quick = '/checkout/bench/results/latest-quick.tmp.json';
    expect(benchmarksPagePath(root, { quick: true, partial: false, out: quick })).toBeNull();
    expect(benchmarksPagePath(root, { quick: true, partial: false, out: latest })).toBeNull();
    expect(benchmarksPagePath(root, { quick: false, partial: true, out: latest })).toBeNull();
    expect(
      benchmarksPagePath(root, { quick: false, partial: false, out: '/tmp/elsewhere.json' }),
    ).toBeNull();
  });
});

describe('bench page: why the missed targets miss', () => {
  it('explains a missed 100-slot drain by the same run’s Redis CPU per task', () => {
    const reasons = missedTargetReasons([
      figure({
        key: 'drain.inProcess.100',
        label: 'drain',
        threadmill: 60_000,
        bullmq: 22_000,
        met: false,
      }),
      figure({ key: 'redisCpu.100', label: 'Redis CPU', threadmill: 15 }),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^\*\*drain\*\*: Redis is the bottleneck/);
    // 60k tasks/s at 15 µs each is 0.90 of a core; 3× 22k/s leaves 15.2 µs a task.
    expect(reasons[0]).toContain('0.90 of one core');
    expect(reasons[0]).toContain('at most 15.2 µs');
  });

  it('explains a missed keyed enqueue by the same run’s plain enqueue time', () => {
    const reasons = missedTargetReasons([
      figure({ key: 'enqueue.sequential', label: 'plain', threadmill: 10_000 }),
      figure({ key: 'enqueue.sequentialKeyed', label: 'keyed', threadmill: 1.5, met: false }),
    ]);
    expect(reasons).toHaveLength(1);
    // 10k/s is 100 µs a call; 1.5× that is 150.
    expect(reasons[0]).toMatch(
      /^\*\*keyed\*\*: A keyed enqueue took 150 µs against 100 µs plain\./,
    );
  });

  it('explains a missed pickup percentile by its two round trips and the same run’s enqueue time', () => {
    const reasons = missedTargetReasons([
      figure({ key: 'latency.p50', label: 'p50', threadmill: 0.556, beeQueue: 0.43, met: false }),
      figure({ key: 'latency.p95', label: 'p95', threadmill: 0.8, beeQueue: 0.84, met: true }),
      figure({
        key: 'enqueue.sequential',
        label: 'sequential',
        threadmill: 10_000,
        beeQueue: 16_000,
      }),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^\*\*p50\*\*: 0\.56 against Bee-Queue's 0\.43 ms\. Both take two/);
    expect(reasons[0]).toContain(
      'Our enqueue is dearer too: 100 against 63 µs a task in the sequential row (through TaskService;',
    );
  });

  it('explains a missed 1-slot drain by the same run’s share of the round-trip limit', () => {
    const reasons = missedTargetReasons([
      figure({
        key: 'drain.inProcess.1',
        label: '1 slot',
        threadmill: 4000,
        bullmq: 2900,
        beeQueue: 4100,
        met: false,
      }),
      figure({
        key: ROUND_TRIP_LIMIT_ROW_KEY,
        label: 'share',
        unit: 'ratio',
        threadmill: 0.65,
        bullmq: 0.55,
        beeQueue: 0.19,
      }),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^\*\*1 slot\*\*: 4000 tasks\/s against BullMQ's 2900 and Bee-Queue's 4100\./,
    );
    // 250 µs a task, 0.65 of it the round trip and the scripts.
    expect(reasons[0]).toContain(
      "of each of our tasks' 250 µs, the round trip and the scripts take 163 µs",
    );
    expect(reasons[0]).toContain(
      '(0.65 of one task per bare round trip and script time, BullMQ 0.55, Bee-Queue 0.19)',
    );
  });

  it('reports the round-trip share without a target, so it gives no reason of its own', () => {
    expect(
      missedTargetReasons([
        figure({ key: ROUND_TRIP_LIMIT_ROW_KEY, label: 'share', threadmill: 0.5, met: null }),
      ]),
    ).toEqual([]);
  });

  it('explains a missed sequential enqueue by the time per call against BullMQ’s, and TaskService’s share', () => {
    const rows = [
      figure({
        key: 'enqueue.sequential',
        label: 'sequential',
        threadmill: 5000,
        bullmq: 6250,
        met: false,
      }),
      figure({ key: 'enqueue.concurrent', label: 'in flight', threadmill: 40_000 }),
      figure({ key: BACKEND_LEVEL_ROW_KEY, label: 'backend-level', threadmill: 50_000 }),
    ];
    const [reason] = missedTargetReasons(rows);
    expect(reason).toContain(
      "Each call through TaskService takes 200 µs against 160 µs for BullMQ's `Queue.add`",
    );
    // 25 µs a task through TaskService at 40k/s, 20 at backend level.
    expect(reason).toContain('is about 5 µs a task');
    // Without the in-flight rows, the time per call alone.
    const [alone] = missedTargetReasons(rows.slice(0, 1));
    expect(alone).toContain('200 µs against 160 µs');
    expect(alone).not.toContain('TaskService’s share');
    expect(alone).not.toContain("TaskService's share");
  });

  it('explains a missed 100 in flight by the same run’s backend-level row', () => {
    const reasons = (backendLevel: number): string[] =>
      missedTargetReasons([
        figure({
          key: 'enqueue.concurrent',
          label: 'in flight',
          threadmill: 40_000,
          beeQueue: 44_000,
          met: false,
        }),
        figure({ key: BACKEND_LEVEL_ROW_KEY, label: 'backend-level', threadmill: backendLevel }),
      ]);
    const [behindForTaskService] = reasons(50_000);
    expect(behindForTaskService).toContain(
      "40000 tasks/s through TaskService against Bee-Queue's 44000; the same enqueues at backend level",
    );
    expect(behindForTaskService).toContain(
      'reach 50000 tasks/s. TaskService adds about 5.0 µs a task',
    );
    expect(behindForTaskService).toContain('which is what puts us behind Bee-Queue here.');
    expect(reasons(42_000)[0]).toContain('the backend alone is behind Bee-Queue too.');
  });

  it('explains a missed memory target against the same run’s BullMQ', () => {
    const [reason] = missedTargetReasons([
      figure({
        key: 'memory.perWaitingTask',
        label: 'memory',
        unit: 'B',
        better: 'lower',
        threadmill: 720,
        bullmq: 701,
        met: false,
      }),
    ]);
    expect(reason).toMatch(
      /^\*\*memory\*\*: 720 B against BullMQ's 701 B: a waiting task is a hash/,
    );
  });

  it('explains a missed prefetch pool row with both rates', () => {
    const [reason] = missedTargetReasons([
      figure({
        key: 'drain.pool.p1t1f1',
        label: 'prefetch',
        threadmill: 3500,
        bullmq: 3600,
        met: false,
      }),
      figure({ key: 'roundTrips.1', label: 'trips', unit: 'count', threadmill: 1 }),
    ]);
    expect(reason).toContain("3500 tasks/s against BullMQ's 3600. At one slot every task is still");
  });

  it('explains a missed backlog row by the same run’s three backlog drains', () => {
    const reasons = missedTargetReasons([
      figure({ key: 'backlog.10000', label: '10k', threadmill: 46_600 }),
      figure({ key: 'backlog.100000', label: '100k', threadmill: 54_200 }),
      figure({ key: 'backlog.1000000', label: '1M', threadmill: 35_300 }),
      figure({ key: 'backlog.flatness', label: 'backlog', threadmill: 0.76, met: false }),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('10k 46600, 100k 54200, 1M 35300 tasks/s');
    expect(reasons[0]).toContain('the 100k backlog drained no slower than the 10k one');
  });

  it("explains a missed CLI start by the same run's Node and module loading times", () => {
    const [reason] = missedTargetReasons([
      figure({
        key: CLI_START_ROW_KEYS.result,
        label: 'result',
        unit: 'ms',
        threadmill: 1200,
        met: false,
      }),
      figure({ key: CLI_START_ROW_KEYS.node, label: 'node', unit: 'ms', threadmill: 100 }),
      figure({ key: CLI_START_ROW_KEYS.modules, label: 'modules', unit: 'ms', threadmill: 900 }),
    ]);
    expect(reason).toMatch(/^\*\*result\*\*: 1200 ms from spawn to exit\. Node alone takes 100 ms/);
    expect(reason).toContain('800 ms more, all before the CLI runs: the rest, 300 ms, is Nest');
  });

  it('says nothing of a met target, nor of a miss whose figures this run lacks', () => {
    expect(
      missedTargetReasons([
        figure({
          key: 'drain.inProcess.100',
          label: 'drain',
          threadmill: 70_000,
          bullmq: 22_000,
          met: true,
        }),
        figure({ key: 'enqueue.sequential', label: 'sequential', threadmill: 9000, met: false }),
        figure({ key: 'redisCpu.100', label: 'Redis CPU', threadmill: 15 }),
      ]),
    ).toEqual([]);
  });
});
