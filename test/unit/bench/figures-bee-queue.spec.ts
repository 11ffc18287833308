import { QUICK } from '../../../bench/bench-config';
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
import { renderTable, toReported } from '../../../bench/report';
import {
  BEE_QUEUE_FIGURES,
  bullmq,
  results,
  row,
  SQLITE_FIGURES,
  THREADMILL_FIGURES,
  type Figures,
} from './figures.setup';

/** The figures of a run of Threadmill, `bullmq` and Bee-Queue, each with the figures given. */
const withBeeQueue = (threadmill: Figures, beeQueue: Figures = BEE_QUEUE_FIGURES) =>
  buildFigures(
    QUICK,
    { [THREADMILL]: results(threadmill), [BULLMQ]: bullmq, [BEE_QUEUE]: results(beeQueue) },
    {},
  );

describe('bench figures: Bee-Queue measured in the same run', () => {
  it('judges bulk enqueue against this run’s Bee-Queue, not the reference 95k/s', () => {
    const bulkRow = (threadmillBulk: number, beeQueueBulk: number) =>
      row(
        withBeeQueue(
          { bulk: threadmillBulk, p99: 1, memory: 600 },
          { bulk: beeQueueBulk, p99: 1, memory: 250 },
        ),
        'enqueue.bulk',
      );
    // 3.6× BullMQ and above the reference 95k/s, but behind Bee-Queue in this run: missed.
    const bulk = bulkRow(100_000, 110_000);
    expect(bulk.beeQueue).toBeCloseTo(110_000);
    expect(bulk.target).toBe('≥ 3× BullMQ and > Bee-Queue');
    expect(bulk.met).toBe(false);

    // Below the reference 95k/s, but ahead of Bee-Queue in this run and ≥ 3× BullMQ: met.
    expect(bulkRow(80_000, 70_000).met).toBe(true);

    // Ahead of Bee-Queue but under 3× BullMQ: missed.
    expect(bulkRow(70_000, 60_000).met).toBe(false);
  });

  it('judges pickup p99 against this run’s Bee-Queue, not the reference 1.5 ms', () => {
    const figures = (threadmillP99: number) =>
      withBeeQueue({ bulk: 100_000, p99: threadmillP99, memory: 600 });
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
      withBeeQueue({ bulk: 100_000, p99: 1, memory: threadmillBytes });
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
        [BEE_QUEUE]: results(BEE_QUEUE_FIGURES),
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
      { [THREADMILL]: results(THREADMILL_FIGURES), [BEE_QUEUE]: results(BEE_QUEUE_FIGURES) },
      pool,
    );
    expect(row(rows, `drain.pool.${poolKey(processes, threads)}`).beeQueue).toBeNull();
  });

  it('names a prefetch row by its flag and holds one slot with a task fetched ahead to BullMQ', () => {
    const config = { ...QUICK, poolRuns: [{ processes: 1, threads: 1, tasks: 1000, prefetch: 1 }] };
    const figures = (threadmill: number) =>
      buildFigures(
        config,
        { [THREADMILL]: results(THREADMILL_FIGURES) },
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
        { [THREADMILL]: results(THREADMILL_FIGURES) },
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
      [THREADMILL]: results(THREADMILL_FIGURES),
      [BULLMQ]: bullmq,
      [BEE_QUEUE]: results(BEE_QUEUE_FIGURES),
      [SQLITE]: results(SQLITE_FIGURES),
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
