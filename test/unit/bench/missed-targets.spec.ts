import { missedTargetReasons } from '../../../bench/missed-targets';
import type { ReportedRow } from '../../../bench/report';

function reported(key: string, threadmill: number, fields: Partial<ReportedRow> = {}): ReportedRow {
  return {
    key,
    label: key,
    unit: 'tasks/s',
    better: 'higher',
    threadmill,
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

describe('bench page: why the missed targets miss', () => {
  it('explains a missed 100-slot drain by the same run’s Redis CPU per task', () => {
    const reasons = missedTargetReasons([
      reported('drain.inProcess.100', 60_000, { bullmq: 22_000, met: false }),
      reported('redisCpu.100', 15),
    ]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^\*\*drain\.inProcess\.100\*\*: Redis is the bottleneck/);
    // 60k tasks/s at 15 µs each is 0.90 of a core; 3× 22k/s leaves 15.2 µs a task.
    expect(reasons[0]).toContain('0.90 of one core');
    expect(reasons[0]).toContain('at most 15.2 µs');
  });

  it('says nothing of a met target, nor of a miss whose figures this run lacks', () => {
    expect(
      missedTargetReasons([
        reported('drain.inProcess.100', 70_000, { bullmq: 22_000, met: true }),
        reported('enqueue.sequential', 9000, { met: false }),
        reported('redisCpu.100', 15),
      ]),
    ).toEqual([]);
  });
});
