import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  BENCHMARKS_PAGE,
  benchmarksPagePath,
  renderBenchmarksPage,
  writeBenchmarksPage,
} from '../../../bench/benchmarks-page';
import type { BenchMeta, BenchReport } from '../../../bench/report';
import { IDLE_SCHEDULE_PASS_KEY } from '../../../bench/schedule-figures';
import { expectEach, FIGURES, figure, META, REPORT, section } from './benchmarks-page.setup';

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
    expectEach(run, [
      '- **Date**: 2026-12-01 10:21–10:40 UTC',
      '- **Commit measured**: `abc1234`, clean working tree',
      '- **CPU**: Example CPU @ 3.0GHz, 2 cores',
      '- **Memory**: 8.0 GiB',
      '- **OS**: Debian GNU/Linux 12 (bookworm), Linux 6.1.0',
      '- **Node**: v20.20.2',
      '- **Redis**: 7.0.15',
      '- **Threadmill**: 0.2.0',
      '- **BullMQ**: 6.7.0',
      '- **Bee-Queue**: 2.0.0',
      '- **SQLite**: 3.53.2 (better-sqlite3 12.11.1)',
    ]);
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
    expectEach(how, [
      'Threadmill through `TaskService.enqueue` and `enqueueMany`',
      'BullMQ through `Queue.add` and `addBulk`',
      'Bee-Queue through `createJob().save()` and `saveAll`',
      'The backend-level row runs the same 100 in flight below TaskService',
    ]);
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
    expectEach(run, [
      '- **Date**: 2026-12-01 10:40 UTC (end of the run)',
      '`abc1234` (working tree state not recorded)',
      '- **CPU**: Example CPU @ 3.0GHz, 2 cores',
      '- **Memory**: not recorded',
      '- **OS**: not recorded',
      '- **Threadmill**: not recorded',
    ]);
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
