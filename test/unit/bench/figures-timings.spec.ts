import { FULL, QUICK } from '../../../bench/bench-config';
import { CLI_START_ROW_KEYS } from '../../../bench/cli-start-figures';
import { DASHBOARD_PAINT_ROW_KEY } from '../../../bench/dashboard-figures';
import { BEE_QUEUE, BULLMQ, buildFigures, SQLITE, THREADMILL } from '../../../bench/figures';
import { PROGRESS_ROW_KEY, type ProgressSample } from '../../../bench/progress-figures';
import { renderTable, toReported, type FigureRow, type ReportedRow } from '../../../bench/report';
import { IDLE_SCHEDULE_PASS_KEY } from '../../../bench/schedule-figures';
import type { SchedulePassSample } from '../../../bench/scenarios';
import type { RunnerResults } from '../../../bench/suite';
import { WAIT_ROW_KEY } from '../../../bench/wait-figures';
import {
  BEE_QUEUE_FIGURES,
  bullmq,
  results,
  row,
  rowBesideBullmq,
  SQLITE_FIGURES,
  threadmillWith,
} from './figures.setup';

describe('bench figures: a maintenance pass over 1,000 schedules none due', () => {
  /** One repetition of 200 passes that took `microsPerPass` of Redis's time each. */
  const sample = (microsPerPass: number): SchedulePassSample => ({
    schedules: 1000,
    passes: 200,
    scriptCalls: 200,
    scriptMicros: microsPerPass * 200,
    commands: 600,
  });
  const passes = (...microsPerPass: number[]): RunnerResults =>
    threadmillWith({
      schedulePasses: microsPerPass.map(sample),
    });
  const figures = (threadmill: RunnerResults): FigureRow[] =>
    buildFigures(
      QUICK,
      {
        [THREADMILL]: threadmill,
        [BULLMQ]: bullmq,
        [BEE_QUEUE]: results(BEE_QUEUE_FIGURES),
        [SQLITE]: results(SQLITE_FIGURES),
      },
      {},
    );
  const passRow = (threadmill: RunnerResults): ReportedRow =>
    row(figures(threadmill), IDLE_SCHEDULE_PASS_KEY);

  it('reports the median Redis time per pass, met under 1000 µs', () => {
    const met = passRow(passes(40, 25, 900));
    expect(met.threadmill).toBeCloseTo(40);
    expect(met).toMatchObject({ unit: 'µs', better: 'lower', target: '< 1000 µs', met: true });
    expect(passRow(passes(999)).met).toBe(true);
    expect(passRow(passes(1000)).met).toBe(false);
    expect(passRow(passes(1500, 1200, 30)).met).toBe(false);
  });

  it('is Threadmill’s on Redis alone: BullMQ and Bee-Queue empty, SQLite not applicable', () => {
    const only = passRow(passes(40));
    expect(only).toMatchObject({ bullmq: null, beeQueue: null, sqlite: 'n/a', ratio: null });
    const line = renderTable(figures(passes(40)).map(toReported))
      .split('\n')
      .find((text) => text.startsWith('| maintenance pass'));
    expect(line).toBe(
      '| maintenance pass, 1,000 schedules none due: Redis time per pass (µs, lower is better) | 40.0 | – | – | – | < 1000 µs | met | n/a | n/a |',
    );
  });

  it('has no figure, and judges nothing, when no pass was measured', () => {
    expect(passRow(passes())).toMatchObject({ threadmill: null, met: null });
  });
});

describe('bench figures: tasks reporting progress every ms against the same tasks silent', () => {
  /** One repetition whose reporting run took `ratio` times the silent one's worker CPU. */
  const sample = (ratio: number): ProgressSample => ({
    tasks: 30,
    silentCpuMicros: 200_000,
    reportingCpuMicros: 200_000 * ratio,
  });
  const reporting = (...ratios: number[]): RunnerResults =>
    threadmillWith({
      progress: ratios.map(sample),
    });
  const progressRow = (threadmill: RunnerResults, sqlite = reporting(1.01)): ReportedRow =>
    row(
      buildFigures(QUICK, { [THREADMILL]: threadmill, [BULLMQ]: bullmq, [SQLITE]: sqlite }, {}),
      PROGRESS_ROW_KEY,
    );

  it('reports the median ratio of the repetitions, met under 1.05×', () => {
    const met = progressRow(reporting(1.02, 1.2, 0.99));
    expect(met.threadmill).toBeCloseTo(1.02);
    expect(met).toMatchObject({
      target: '< 1.05× the same task silent',
      met: true,
      better: 'lower',
      bullmq: null,
    });
    expect(met.sqlite).toBeCloseTo(1.01);
    expect(progressRow(reporting(1.05)).met).toBe(false);
  });

  it('has no figure, and judges nothing, when nothing was measured', () => {
    expect(progressRow(reporting())).toMatchObject({ threadmill: null, met: null });
  });
});

describe('bench figures: waiting for a result', () => {
  const waited = (...repetitions: number[][]): RunnerResults =>
    threadmillWith({
      waits: repetitions,
    });
  const waitRowOf = (threadmill: RunnerResults): ReportedRow =>
    rowBesideBullmq(threadmill, WAIT_ROW_KEY);

  it('reports the median of the repetitions’ medians, met under 50 ms, Threadmill on Redis alone', () => {
    const met = waitRowOf(waited([1, 2, 90], [0.5, 0.9, 1], [3, 4, 5]));
    expect(met.threadmill).toBeCloseTo(2);
    expect(met).toMatchObject({ unit: 'ms', better: 'lower', target: '< 50 ms', met: true });
    expect(met).toMatchObject({ bullmq: null, sqlite: 'n/a' });
    expect(waitRowOf(waited([49, 51, 70])).met).toBe(false);
  });

  it('has no figure, and judges nothing, when no wait was measured', () => {
    expect(waitRowOf(waited())).toMatchObject({ threadmill: null, met: null });
  });
});

describe('bench figures: the dashboard overview with tasks waiting', () => {
  const loaded = (...times: number[]): RunnerResults =>
    threadmillWith({
      dashboardPaintMs: times,
    });
  const paintRow = (threadmill: RunnerResults): ReportedRow =>
    rowBesideBullmq(threadmill, DASHBOARD_PAINT_ROW_KEY, FULL);

  it('reports the median load until the counts show, met under a second, on Redis alone', () => {
    const met = paintRow(loaded(900, 300, 350, 2000, 320));
    expect(met).toMatchObject({
      label: 'dashboard overview with 1M waiting: counts shown after navigation',
      threadmill: 350,
      target: '< 1000 ms',
      met: true,
      sqlite: 'n/a',
    });
    expect(paintRow(loaded(1200, 1000, 900)).met).toBe(false);
  });

  it('has no figure, and judges nothing, when the page was not opened', () => {
    expect(paintRow(loaded())).toMatchObject({ threadmill: null, met: null });
  });
});

describe("bench figures: the CLI's start", () => {
  const started = (...resultMs: number[]): RunnerResults =>
    threadmillWith({
      cliStarts: resultMs.map((ms) => ({
        resultMs: ms,
        queuesListMs: ms + 100,
        nodeMs: 50,
        modulesMs: 400,
      })),
    });
  const rowOf = (threadmill: RunnerResults, key: string): ReportedRow =>
    rowBesideBullmq(threadmill, key, FULL);

  it('reports the median start of each command, met under a second, with what Node and the modules take', () => {
    const threadmill = started(700, 1500, 800);
    expect(rowOf(threadmill, CLI_START_ROW_KEYS.result)).toMatchObject({
      label: 'CLI `result <id>`, spawn to exit (median of 9)',
      threadmill: 800,
      target: '< 1000 ms',
      met: true,
      sqlite: 'n/a',
    });
    expect(rowOf(threadmill, CLI_START_ROW_KEYS.queuesList)).toMatchObject({
      threadmill: 900,
      met: true,
    });
    expect(rowOf(threadmill, CLI_START_ROW_KEYS.node)).toMatchObject({ threadmill: 50, met: null });
    expect(rowOf(threadmill, CLI_START_ROW_KEYS.modules)).toMatchObject({ threadmill: 400 });
    expect(rowOf(started(1200, 1000, 900), CLI_START_ROW_KEYS.queuesList).met).toBe(false);
  });

  it('has no figure, and judges nothing, when the CLI was not started', () => {
    expect(rowOf(started(), CLI_START_ROW_KEYS.result)).toMatchObject({
      threadmill: null,
      met: null,
    });
  });
});
