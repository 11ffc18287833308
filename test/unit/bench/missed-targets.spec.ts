import { BACKEND_LEVEL_ROW_KEY } from '../../../bench/enqueue-figures';
import { CLI_START_ROW_KEYS } from '../../../bench/cli-start-figures';
import { missedTargetReasons } from '../../../bench/missed-targets';
import { ROUND_TRIP_LIMIT_ROW_KEY } from '../../../bench/round-trip-figures';
import type { ReportedRow } from '../../../bench/report';
import { figure } from './benchmarks-page.setup';

/** The row `key` whose target was missed, with `figures`. */
const missed = (key: string, label: string, figures: Partial<ReportedRow>): ReportedRow =>
  figure({ key, label, met: false, ...figures });

describe('bench page: why the missed targets miss', () => {
  it('explains a missed 100-slot drain by the same run’s Redis CPU per task', () => {
    const reasons = missedTargetReasons([
      missed('drain.inProcess.100', 'drain', { threadmill: 60_000, bullmq: 22_000 }),
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
      missed('enqueue.sequentialKeyed', 'keyed', { threadmill: 1.5 }),
    ]);
    expect(reasons).toHaveLength(1);
    // 10k/s is 100 µs a call; 1.5× that is 150.
    expect(reasons[0]).toMatch(
      /^\*\*keyed\*\*: A keyed enqueue took 150 µs against 100 µs plain\./,
    );
  });

  it('explains a missed pickup percentile by its two round trips and the same run’s enqueue time', () => {
    const reasons = missedTargetReasons([
      missed('latency.p50', 'p50', { threadmill: 0.556, beeQueue: 0.43 }),
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
      missed('drain.inProcess.1', '1 slot', { threadmill: 4000, bullmq: 2900, beeQueue: 4100 }),
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
      missed('enqueue.sequential', 'sequential', { threadmill: 5000, bullmq: 6250 }),
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
        missed('enqueue.concurrent', 'in flight', { threadmill: 40_000, beeQueue: 44_000 }),
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
      missed('memory.perWaitingTask', 'memory', {
        unit: 'B',
        better: 'lower',
        threadmill: 720,
        bullmq: 701,
      }),
    ]);
    expect(reason).toMatch(
      /^\*\*memory\*\*: 720 B against BullMQ's 701 B: a waiting task is a hash/,
    );
  });

  it('explains a missed prefetch pool row with both rates', () => {
    const [reason] = missedTargetReasons([
      missed('drain.pool.p1t1f1', 'prefetch', { threadmill: 3500, bullmq: 3600 }),
      figure({ key: 'roundTrips.1', label: 'trips', unit: 'count', threadmill: 1 }),
    ]);
    expect(reason).toContain("3500 tasks/s against BullMQ's 3600. At one slot every task is still");
  });

  it('explains a missed backlog row by the same run’s three backlog drains', () => {
    const reasons = missedTargetReasons([
      figure({ key: 'backlog.10000', label: '10k', threadmill: 46_600 }),
      figure({ key: 'backlog.100000', label: '100k', threadmill: 54_200 }),
      figure({ key: 'backlog.1000000', label: '1M', threadmill: 35_300 }),
      missed('backlog.flatness', 'backlog', { threadmill: 0.76 }),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('10k 46600, 100k 54200, 1M 35300 tasks/s');
    expect(reasons[0]).toContain('the 100k backlog drained no slower than the 10k one');
  });

  it("explains a missed CLI start by the same run's Node and module loading times", () => {
    const [reason] = missedTargetReasons([
      missed(CLI_START_ROW_KEYS.result, 'result', { unit: 'ms', threadmill: 1200 }),
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
        missed('enqueue.sequential', 'sequential', { threadmill: 9000 }),
        figure({ key: 'redisCpu.100', label: 'Redis CPU', threadmill: 15 }),
      ]),
    ).toEqual([]);
  });
});
