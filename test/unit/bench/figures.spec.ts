import { FULL, QUICK } from '../../../bench/bench-config';
import { CLI_START_ROW_KEYS } from '../../../bench/cli-start-figures';
import { DASHBOARD_PAINT_ROW_KEY } from '../../../bench/dashboard-figures';
import {
  BEE_QUEUE,
  BEE_QUEUE_REFERENCE,
  BULLMQ,
  buildFigures,
  poolKey,
  SQLITE,
  THREADMILL,
  type PoolResults,
} from '../../../bench/figures';
import type { WindowCost } from '../../../bench/metrics';
import { renderTable, toReported, type FigureRow, type ReportedRow } from '../../../bench/report';
import { PROGRESS_ROW_KEY, type ProgressSample } from '../../../bench/progress-figures';
import { IDLE_SCHEDULE_PASS_KEY } from '../../../bench/schedule-figures';
import { WAIT_ROW_KEY } from '../../../bench/wait-figures';
import { ROUND_TRIP_LIMIT_ROW_KEY } from '../../../bench/round-trip-figures';
import { BACKEND_LEVEL_ROW_KEY } from '../../../bench/enqueue-figures';
import type {
  BacklogSamples,
  DrainSample,
  EnqueueMode,
  SchedulePassSample,
} from '../../../bench/scenarios';
import type { RunnerResults } from '../../../bench/suite';

/** A window of `seconds` that made `roundTrips` round trips and ran scripts for `scriptMicros`. */
function cost(seconds: number, roundTrips = 0, scriptMicros = 0): WindowCost {
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

interface Figures {
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

/** Results of one runner whose figures under test are exactly `f`. */
function results(f: Figures): RunnerResults {
  const tasks = 1000;
  const drain = (): DrainSample[] => [
    { tasks, waitingBefore: tasks, cost: cost(1, (f.roundTrips ?? 1) * tasks) },
  ];
  return {
    drain: Object.fromEntries(QUICK.drainSlots.map((slots) => [slots, drain()])),
    enqueue: { bulk: { tasks, costs: [cost(tasks / f.bulk)] } },
    latency: [
      { sent: 100, seen: 100, p50Ms: f.p99 / 4, p95Ms: f.p99 / 2, p99Ms: f.p99, maxMs: f.p99 },
    ],
    memoryPerTaskBytes: f.memory,
    backlog: {},
    schedulePasses: [],
    progress: [],
    waits: [],
    bareRoundTripMicros: [],
    dashboardPaintMs: [],
    cliStarts: [],
    roundTripsCounted: f.roundTripsCounted ?? true,
  };
}

function row(rows: readonly FigureRow[], key: string): ReportedRow {
  const found = rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return toReported(found);
}

const bullmq = results({ bulk: 25_000, p99: 2.5, memory: 700 });

describe('bench figures: Bee-Queue measured in the same run', () => {
  it('judges bulk enqueue against this run’s Bee-Queue, not the reference 95k/s', () => {
    // 3.6× BullMQ and above the reference 95k/s, but behind Bee-Queue in this run: missed.
    const behind = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600 }),
        [BULLMQ]: bullmq,
        [BEE_QUEUE]: results({ bulk: 110_000, p99: 1, memory: 250 }),
      },
      {},
    );
    const bulk = row(behind, 'enqueue.bulk');
    expect(bulk.beeQueue).toBeCloseTo(110_000);
    expect(bulk.target).toBe('≥ 3× BullMQ and > Bee-Queue');
    expect(bulk.met).toBe(false);

    // Below the reference 95k/s, but ahead of Bee-Queue in this run and ≥ 3× BullMQ: met.
    const ahead = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 80_000, p99: 1, memory: 600 }),
        [BULLMQ]: bullmq,
        [BEE_QUEUE]: results({ bulk: 70_000, p99: 1, memory: 250 }),
      },
      {},
    );
    expect(row(ahead, 'enqueue.bulk').met).toBe(true);

    // Ahead of Bee-Queue but under 3× BullMQ: missed.
    const slow = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 70_000, p99: 1, memory: 600 }),
        [BULLMQ]: bullmq,
        [BEE_QUEUE]: results({ bulk: 60_000, p99: 1, memory: 250 }),
      },
      {},
    );
    expect(row(slow, 'enqueue.bulk').met).toBe(false);
  });

  it('judges pickup p99 against this run’s Bee-Queue, not the reference 1.5 ms', () => {
    const figures = (threadmillP99: number) =>
      buildFigures(
        QUICK,
        {
          [THREADMILL]: results({ bulk: 100_000, p99: threadmillP99, memory: 600 }),
          [BULLMQ]: bullmq,
          [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
        },
        {},
      );
    const under = row(figures(1.8), 'latency.p99');
    expect(under.beeQueue).toBe(2);
    expect(under.target).toBe('≤ Bee-Queue');
    expect(under.met).toBe(true); // above the reference 1.5 ms, below this run's Bee-Queue
    expect(row(figures(2), 'latency.p99').met).toBe(true);
    expect(row(figures(2.1), 'latency.p99').met).toBe(false);
    // p50 and p95 too: 0.45 and 0.9 ms against Bee-Queue's 0.5 and 1 ms.
    expect(row(figures(1.8), 'latency.p50')).toMatchObject({ target: '≤ Bee-Queue', met: true });
    expect(row(figures(2.2), 'latency.p95')).toMatchObject({ target: '≤ Bee-Queue', met: false });
  });

  it('holds memory per task to this run’s BullMQ, saying how far it is from Bee-Queue’s', () => {
    const figures = (threadmillBytes: number) =>
      buildFigures(
        QUICK,
        {
          [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: threadmillBytes }),
          [BULLMQ]: bullmq,
          [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
        },
        {},
      );
    // BullMQ's is 700 B.
    const memory = row(figures(640), 'memory.perWaitingTask');
    expect(memory.beeQueue).toBe(250);
    expect(memory.target).toBe('≤ BullMQ (Bee-Queue: 250 B, ours 2.56× that)');
    expect(memory.met).toBe(true);
    expect(row(figures(700), 'memory.perWaitingTask').met).toBe(true);
    expect(row(figures(701), 'memory.perWaitingTask').met).toBe(false);
  });

  it('does not judge memory per task without BullMQ in the run', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 300 }),
        [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
      },
      {},
    );
    expect(row(rows, 'memory.perWaitingTask')).toMatchObject({ bullmq: null, met: null });
  });

  it('reports Bee-Queue’s round trips as not measured, its other Redis figures as measured', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600, roundTrips: 0.04 }),
        [BULLMQ]: results({ bulk: 25_000, p99: 2.5, memory: 700, roundTrips: 1 }),
        [BEE_QUEUE]: results({
          bulk: 50_000,
          p99: 2,
          memory: 250,
          roundTrips: 0,
          roundTripsCounted: false,
        }),
      },
      {},
    );
    for (const slots of [Math.max(...QUICK.drainSlots), Math.min(...QUICK.drainSlots)]) {
      const trips = row(rows, `roundTrips.${slots}`);
      expect(trips.beeQueue).toBeNull();
      expect(trips.threadmill).toBeCloseTo(0.04);
      expect(trips.bullmq).toBeCloseTo(1);
    }
    expect(row(rows, `commands.${Math.max(...QUICK.drainSlots)}`).beeQueue).toBeCloseTo(0.1);
    for (const slots of QUICK.drainSlots) {
      expect(row(rows, `drain.inProcess.${slots}`).beeQueue).toBeCloseTo(1000);
    }
  });

  it('leaves Bee-Queue out of the pool rows', () => {
    const { processes, threads } = QUICK.poolRuns[0];
    const pool: PoolResults = {
      [poolKey(processes, threads)]: { [THREADMILL]: [20_000], [BULLMQ]: [10_000] },
    };
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600 }),
        [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
      },
      pool,
    );
    expect(row(rows, `drain.pool.${poolKey(processes, threads)}`).beeQueue).toBeNull();
  });

  it('names a prefetch row by its flag and holds one slot with a task fetched ahead to BullMQ', () => {
    const config = { ...QUICK, poolRuns: [{ processes: 1, threads: 1, tasks: 1000, prefetch: 1 }] };
    const figures = (threadmill: number) =>
      buildFigures(
        config,
        { [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600 }) },
        { p1t1f1: { [THREADMILL]: [threadmill], [BULLMQ]: [4000] } },
      );
    expect(poolKey(1, 1, 1)).toBe('p1t1f1');
    expect(poolKey(1, 1)).toBe('p1t1');
    const met = row(figures(6000), 'drain.pool.p1t1f1');
    expect(met).toMatchObject({
      label: 'drain 1k, pool --processes 1 --threads 1 --prefetch 1',
      target: '≥ BullMQ',
      met: true,
    });
    expect(row(figures(4000), 'drain.pool.p1t1f1').met).toBe(true);
    expect(row(figures(3900), 'drain.pool.p1t1f1').met).toBe(false);
  });

  it('holds the pool of 100 threads in one process to 2.5× BullMQ, and judges no 2-process row', () => {
    const config = {
      ...QUICK,
      poolRuns: [
        { processes: 1, threads: 100, tasks: 1000 },
        { processes: 2, threads: 100, tasks: 1000 },
      ],
    };
    const figures = (threadmill: number) =>
      buildFigures(
        config,
        { [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600 }) },
        {
          p1t100: { [THREADMILL]: [threadmill], [BULLMQ]: [10_000] },
          p2t100: { [THREADMILL]: [threadmill], [BULLMQ]: [10_000] },
        },
      );
    expect(row(figures(25_000), 'drain.pool.p1t100')).toMatchObject({
      target: '≥ 2.5× BullMQ',
      met: true,
    });
    expect(row(figures(24_000), 'drain.pool.p1t100').met).toBe(false);
    expect(row(figures(24_000), 'drain.pool.p2t100')).toMatchObject({ target: null, met: null });
  });
});

describe('bench figures: Bee-Queue not run (the reference figures)', () => {
  const figures = (threadmill: Figures) =>
    buildFigures(QUICK, { [THREADMILL]: results(threadmill), [BULLMQ]: bullmq }, {});

  it('judges bulk enqueue against the reference 95k/s and says so', () => {
    const ahead = row(figures({ bulk: 96_000, p99: 1, memory: 600 }), 'enqueue.bulk');
    expect(ahead.beeQueue).toBeNull();
    expect(ahead.target).toBe('≥ 3× BullMQ and > Bee-Queue (95k/s, reference figure)');
    expect(ahead.met).toBe(true);
    expect(row(figures({ bulk: 94_000, p99: 1, memory: 600 }), 'enqueue.bulk').met).toBe(false);
    expect(BEE_QUEUE_REFERENCE.bulkEnqueuePerSecond).toBe(95_000);
  });

  it('judges pickup p99 against the reference 1.5 ms and says so', () => {
    const under = row(figures({ bulk: 96_000, p99: 1.4, memory: 600 }), 'latency.p99');
    expect(under.target).toBe('≤ Bee-Queue (1.5 ms, reference figure)');
    expect(under.met).toBe(true);
    expect(row(figures({ bulk: 96_000, p99: 1.6, memory: 600 }), 'latency.p99').met).toBe(false);
  });

  it('names the reference 280 B beside the memory target, still judged on this run’s BullMQ', () => {
    const memory = row(figures({ bulk: 96_000, p99: 1, memory: 390 }), 'memory.perWaitingTask');
    expect(memory.target).toBe('≤ BullMQ (Bee-Queue: 280 B, reference figure)');
    expect(memory.met).toBe(true);
    const over = row(figures({ bulk: 96_000, p99: 1, memory: 720 }), 'memory.perWaitingTask');
    expect(over.met).toBe(false);
  });

  it('does not judge the 1-slot drain, which must be ahead of both peers', () => {
    const oneSlot = row(figures({ bulk: 96_000, p99: 1, memory: 390 }), 'drain.inProcess.1');
    expect(oneSlot).toMatchObject({ target: '> BullMQ and > Bee-Queue', met: null });
  });

  it('judges pickup p50 and p95 only against a Bee-Queue of this run', () => {
    const rows = figures({ bulk: 96_000, p99: 1, memory: 390 });
    expect(row(rows, 'latency.p50').target).toBeNull();
    expect(row(rows, 'latency.p95').target).toBeNull();
  });
});

describe('bench report: the Bee-Queue column', () => {
  const rows = buildFigures(
    QUICK,
    {
      [THREADMILL]: results({ bulk: 100_000, p99: 1, memory: 600 }),
      [BULLMQ]: bullmq,
      [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
      [SQLITE]: results({ bulk: 40_000, p99: 3, memory: 0 }),
    },
    {},
  ).map(toReported);

  it('comes right after BullMQ, before the Threadmill / BullMQ ratio', () => {
    const [header, , ...lines] = renderTable(rows)
      .split('\n')
      .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s\|$/g, '')));
    expect(header.slice(0, 5)).toEqual([
      'figure',
      'Threadmill (Redis)',
      'BullMQ',
      'Bee-Queue',
      'Threadmill / BullMQ',
    ]);
    expect(header.slice(-2)).toEqual(['Threadmill (SQLite)', 'SQLite / BullMQ']);
    const bulk = lines.find((cells) => cells[0].startsWith('enqueue, bulk'));
    expect(bulk?.slice(1, 5)).toEqual(['100.0k', '25.0k', '50.0k', '4.00×']);
    const trips = lines.find((cells) => cells[0].startsWith('round trips per task, 1 slot'));
    expect(trips?.[3]).toBe('1.00');
  });

  it('carries the Bee-Queue figure into the JSON rows', () => {
    const bulk = rows.find((r) => r.key === 'enqueue.bulk');
    expect(JSON.parse(JSON.stringify(bulk))).toMatchObject({ beeQueue: 50_000, bullmq: 25_000 });
  });
});

describe('bench figures: backlog slices', () => {
  /** A backlog of 1000-task slices: one right after the fill, three once Redis settled. */
  function backlog(freshSeconds: number, settledSeconds: number): BacklogSamples {
    const slice = (seconds: number): DrainSample => ({
      tasks: 1000,
      waitingBefore: 1000,
      cost: cost(seconds),
    });
    return {
      fresh: slice(freshSeconds),
      settleMs: 100,
      settled: [slice(settledSeconds), slice(settledSeconds), slice(settledSeconds)],
    };
  }
  const [smallest, largest] = QUICK.backlogs;
  const withBacklogs = (small: BacklogSamples, large: BacklogSamples): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
    backlog: { [smallest]: small, [largest]: large },
  });

  it('judges flatness on the slices drained once Redis settled', () => {
    // Half as fast right after the fill of the large backlog, 0.9 of the small one's rate settled.
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: withBacklogs(backlog(0.1, 0.1), backlog(0.2, 0.1 / 0.9)),
        [BULLMQ]: bullmq,
      },
      {},
    );
    const flatness = row(rows, 'backlog.flatness');
    expect(flatness.threadmill).toBeCloseTo(0.9, 5);
    expect(flatness.met).toBe(true);
    expect(row(rows, `backlog.${largest}`).threadmill).toBeCloseTo(9000, 5);
  });

  it('reports the slice right after the largest fill on its own row, without a target', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: withBacklogs(backlog(0.1, 0.1), backlog(0.2, 0.1)),
        [BULLMQ]: bullmq,
      },
      {},
    );
    const fresh = row(rows, `backlog.${largest}.fresh`);
    expect(fresh.threadmill).toBeCloseTo(5000, 5);
    expect(fresh.bullmq).toBeNull();
    expect(fresh.met).toBeNull();
  });
});

describe('bench figures: a unique key on sequential enqueue', () => {
  /** A runner whose keyed sequential enqueue took `ratio` times as long as its plain one. */
  const keyed = (ratio: number | null): RunnerResults => {
    const runner = results({ bulk: 100_000, p99: 1, memory: 600 });
    runner.enqueue.sequential = { tasks: 1000, costs: [cost(0.5), cost(0.4), cost(0.6)] };
    if (ratio !== null) {
      runner.enqueue.sequentialKeyed = { tasks: 1000, costs: [cost(0.5 * ratio)] };
    }
    return runner;
  };
  const keyedRow = (threadmill: RunnerResults) =>
    row(
      buildFigures(QUICK, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}),
      'enqueue.sequentialKeyed',
    );

  it('reports the keyed time as a ratio of the plain one, next to the sequential row, met up to 1.3×', () => {
    const rows = buildFigures(QUICK, { [THREADMILL]: keyed(1.2), [BULLMQ]: bullmq }, {});
    const keys = rows.map((r) => r.key);
    expect(keys.indexOf('enqueue.sequentialKeyed')).toBe(keys.indexOf('enqueue.sequential') + 1);
    const met = keyedRow(keyed(1.2));
    expect(met.threadmill).toBeCloseTo(1.2);
    expect(met.bullmq).toBeNull();
    expect(met).toMatchObject({
      label: 'enqueue, sequential, with a unique key, through TaskService',
      target: '≤ 1.3× plain',
      met: true,
      better: 'lower',
    });
    expect(keyedRow(keyed(1.5)).met).toBe(false);
  });

  it('has no figure for a runner that measured no keyed enqueue', () => {
    expect(keyedRow(keyed(null))).toMatchObject({ threadmill: null, met: null });
  });
});

describe('bench figures: a maintenance pass over 1,000 schedules none due', () => {
  /** One repetition of 200 passes that took `microsPerPass` of Redis's time each. */
  const sample = (microsPerPass: number): SchedulePassSample => ({
    schedules: 1000,
    passes: 200,
    scriptCalls: 200,
    scriptMicros: microsPerPass * 200,
    commands: 600,
  });
  const passes = (...microsPerPass: number[]): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
    schedulePasses: microsPerPass.map(sample),
  });
  const figures = (threadmill: RunnerResults): FigureRow[] =>
    buildFigures(
      QUICK,
      {
        [THREADMILL]: threadmill,
        [BULLMQ]: bullmq,
        [BEE_QUEUE]: results({ bulk: 50_000, p99: 2, memory: 250 }),
        [SQLITE]: results({ bulk: 40_000, p99: 3, memory: 0 }),
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
  const reporting = (...ratios: number[]): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
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
  const waited = (...repetitions: number[][]): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
    waits: repetitions,
  });
  const waitRowOf = (threadmill: RunnerResults): ReportedRow =>
    row(buildFigures(QUICK, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}), WAIT_ROW_KEY);

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

describe('bench figures: one slot against its round-trip limit', () => {
  // 1000 tasks in 1 s at one slot, after bare round trips of 600 µs, scripts ran 200 µs a task.
  const timed = (roundTrips: number[], scriptMicros = 200_000): RunnerResults => {
    const base = results({ bulk: 100_000, p99: 1, memory: 600 });
    const slice = { tasks: 1000, waitingBefore: 1000, cost: cost(1, 1000, scriptMicros) };
    return {
      ...base,
      drain: { ...base.drain, 1: roundTrips.map(() => slice) },
      bareRoundTripMicros: roundTrips,
    };
  };
  const limitRow = (threadmill: RunnerResults): ReportedRow =>
    row(
      buildFigures(QUICK, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}),
      ROUND_TRIP_LIMIT_ROW_KEY,
    );

  it('is the rate over one task per (round trip + script time), the median, reported without a target', () => {
    // The limit is 1250 tasks/s (800 µs a task); 1000 tasks/s is 0.8 of it.
    const reported = limitRow(timed([500, 600, 900]));
    expect(reported.threadmill).toBeCloseTo(0.8);
    expect(reported).toMatchObject({ target: null, met: null, sqlite: 'n/a' });
    // 600 µs of round trip and no script time: the limit is 1667 tasks/s, 1000 is 0.6 of it.
    expect(limitRow(timed([600], 0)).threadmill).toBeCloseTo(0.6);
  });

  it('judges the 1-slot drain itself: ahead of both BullMQ and Bee-Queue of this run', () => {
    // Threadmill's 1-slot drain: 1000 tasks/s; each peer's: 1000 / seconds.
    const peer = (seconds: number): RunnerResults => ({
      ...results({ bulk: 50_000, p99: 2, memory: 250 }),
      drain: { 1: [{ tasks: 1000, waitingBefore: 1000, cost: cost(seconds) }] },
    });
    const oneSlot = (bullmqSeconds: number, beeQueueSeconds: number): ReportedRow =>
      row(
        buildFigures(
          QUICK,
          {
            [THREADMILL]: timed([600]),
            [BULLMQ]: peer(bullmqSeconds),
            [BEE_QUEUE]: peer(beeQueueSeconds),
          },
          {},
        ),
        'drain.inProcess.1',
      );
    expect(oneSlot(1.4, 1.1)).toMatchObject({ target: '> BullMQ and > Bee-Queue', met: true });
    expect(oneSlot(1.4, 0.9).met).toBe(false);
    expect(oneSlot(0.9, 1.1).met).toBe(false);
    expect(oneSlot(1, 1.1).met).toBe(false);
  });

  it('has no figure, and judges nothing, without a round trip measured', () => {
    expect(limitRow(timed([]))).toMatchObject({ threadmill: null, met: null });
  });
});

describe('bench figures: enqueue through TaskService against the peers’ public calls', () => {
  const enqueued = (perSecond: Partial<Record<EnqueueMode, number>>): RunnerResults => ({
    ...results({ bulk: perSecond.bulk ?? 100_000, p99: 1, memory: 600 }),
    enqueue: Object.fromEntries(
      Object.entries(perSecond).map(([mode, rate]) => [
        mode,
        { tasks: 1000, costs: [cost(1000 / rate)] },
      ]),
    ),
  });

  it('holds sequential enqueue to this run’s BullMQ, and judges nothing without it', () => {
    const sequential = (threadmill: number) =>
      row(
        buildFigures(
          QUICK,
          {
            [THREADMILL]: enqueued({ sequential: threadmill }),
            [BULLMQ]: enqueued({ sequential: 6000 }),
            [BEE_QUEUE]: enqueued({ sequential: 11_000 }),
          },
          {},
        ),
        'enqueue.sequential',
      );
    expect(sequential(6000)).toMatchObject({
      label: 'enqueue, sequential, through TaskService',
      target: '≥ BullMQ',
      met: true,
    });
    expect(sequential(5900).met).toBe(false);
    const alone = buildFigures(QUICK, { [THREADMILL]: enqueued({ sequential: 15_000 }) }, {});
    expect(row(alone, 'enqueue.sequential')).toMatchObject({ target: '≥ BullMQ', met: null });
  });

  it('holds 100 in flight through TaskService to this run’s Bee-Queue, else its reference figure', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: enqueued({ concurrent: 80_000, concurrentBackendLevel: 70_000 }),
        [BEE_QUEUE]: enqueued({ concurrent: 78_000 }),
      },
      {},
    );
    expect(row(rows, 'enqueue.concurrent')).toMatchObject({
      label: 'enqueue, 100 in flight, through TaskService',
      target: '≥ Bee-Queue',
      met: true,
    });
    const alone = buildFigures(QUICK, { [THREADMILL]: enqueued({ concurrent: 60_000 }) }, {});
    expect(row(alone, 'enqueue.concurrent')).toMatchObject({
      target: '≥ Bee-Queue (65.7k/s, reference figure)',
      met: false,
    });
  });

  it('reports the backend-level in-flight rate right after the TaskService one, without a target', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: enqueued({ concurrent: 40_000, concurrentBackendLevel: 50_000 }),
        [SQLITE]: enqueued({ concurrent: 30_000, concurrentBackendLevel: 35_000 }),
        [BEE_QUEUE]: enqueued({ concurrent: 45_000 }),
      },
      {},
    );
    const keys = rows.map((r) => r.key);
    expect(keys.indexOf(BACKEND_LEVEL_ROW_KEY)).toBe(keys.indexOf('enqueue.concurrent') + 1);
    const backendLevel = row(rows, BACKEND_LEVEL_ROW_KEY);
    expect(backendLevel).toMatchObject({
      label: 'enqueue, 100 in flight, backend-level (below TaskService)',
      target: null,
      met: null,
      beeQueue: null,
    });
    expect(backendLevel.threadmill).toBeCloseTo(50_000);
    expect(backendLevel.sqlite).toBeCloseTo(35_000);
    expect(row(rows, 'enqueue.bulk').label).toBe('enqueue, bulk of 1000, through TaskService');
  });

  it('judges the SQLite column’s in-flight rate as a share of its own bulk rate, from 0.8', () => {
    const rows = buildFigures(
      QUICK,
      {
        [THREADMILL]: enqueued({ concurrent: 50_000, bulk: 100_000 }),
        [SQLITE]: enqueued({ concurrent: 40_000, bulk: 50_000 }),
      },
      {},
    );
    const share = row(rows, 'enqueue.concurrentOfBulk');
    expect(share.threadmill).toBeCloseTo(0.5);
    expect(share.sqlite).toBeCloseTo(0.8);
    expect(share).toMatchObject({ target: 'SQLite ≥ 0.8 of its bulk', met: true });
  });
});

describe('bench figures: the dashboard overview with tasks waiting', () => {
  const loaded = (...times: number[]): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
    dashboardPaintMs: times,
  });
  const paintRow = (threadmill: RunnerResults): ReportedRow =>
    row(
      buildFigures(FULL, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}),
      DASHBOARD_PAINT_ROW_KEY,
    );

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
  const started = (...resultMs: number[]): RunnerResults => ({
    ...results({ bulk: 100_000, p99: 1, memory: 600 }),
    cliStarts: resultMs.map((ms) => ({
      resultMs: ms,
      queuesListMs: ms + 100,
      nodeMs: 50,
      modulesMs: 400,
    })),
  });
  const rowOf = (threadmill: RunnerResults, key: string): ReportedRow =>
    row(buildFigures(FULL, { [THREADMILL]: threadmill, [BULLMQ]: bullmq }, {}), key);

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
