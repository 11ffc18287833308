import { QUICK } from '../../../bench/bench-config';
import { BACKEND_LEVEL_ROW_KEY } from '../../../bench/enqueue-figures';
import { BEE_QUEUE, BULLMQ, buildFigures, SQLITE, THREADMILL } from '../../../bench/figures';
import type { EnqueueMode } from '../../../bench/scenarios';
import type { RunnerResults } from '../../../bench/suite';
import { bullmq, cost, results, row, rowBesideBullmq, THREADMILL_FIGURES } from './figures.setup';

describe('bench figures: a unique key on sequential enqueue', () => {
  /** A runner whose keyed sequential enqueue took `ratio` times as long as its plain one. */
  const keyed = (ratio: number | null): RunnerResults => {
    const runner = results(THREADMILL_FIGURES);
    runner.enqueue.sequential = { tasks: 1000, costs: [cost(0.5), cost(0.4), cost(0.6)] };
    if (ratio !== null) {
      runner.enqueue.sequentialKeyed = { tasks: 1000, costs: [cost(0.5 * ratio)] };
    }
    return runner;
  };
  const keyedRow = (threadmill: RunnerResults) =>
    rowBesideBullmq(threadmill, 'enqueue.sequentialKeyed');

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
