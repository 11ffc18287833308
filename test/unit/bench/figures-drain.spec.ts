import { QUICK } from '../../../bench/bench-config';
import { BEE_QUEUE, BULLMQ, buildFigures, THREADMILL } from '../../../bench/figures';
import { ROUND_TRIP_LIMIT_ROW_KEY } from '../../../bench/round-trip-figures';
import type { ReportedRow } from '../../../bench/report';
import type { BacklogSamples, DrainSample } from '../../../bench/scenarios';
import type { RunnerResults } from '../../../bench/suite';
import {
  BEE_QUEUE_FIGURES,
  bullmq,
  cost,
  results,
  row,
  rowBesideBullmq,
  THREADMILL_FIGURES,
  threadmillWith,
} from './figures.setup';

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
  const withBacklogs = (small: BacklogSamples, large: BacklogSamples): RunnerResults =>
    threadmillWith({
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

describe('bench figures: one slot against its round-trip limit', () => {
  // 1000 tasks in 1 s at one slot, after bare round trips of 600 µs, scripts ran 200 µs a task.
  const timed = (roundTrips: number[], scriptMicros = 200_000): RunnerResults => {
    const base = results(THREADMILL_FIGURES);
    const slice = { tasks: 1000, waitingBefore: 1000, cost: cost(1, 1000, scriptMicros) };
    return {
      ...base,
      drain: { ...base.drain, 1: roundTrips.map(() => slice) },
      bareRoundTripMicros: roundTrips,
    };
  };
  const limitRow = (threadmill: RunnerResults): ReportedRow =>
    rowBesideBullmq(threadmill, ROUND_TRIP_LIMIT_ROW_KEY);

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
      ...results(BEE_QUEUE_FIGURES),
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
