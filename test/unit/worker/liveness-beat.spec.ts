import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { LivenessBeat } from '../../../lib/worker/child/liveness-beat';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';

const record = (name: string): TaskRecord => ({ task: { name } }) as TaskRecord;

describe('LivenessBeat', () => {
  afterEach(() => jest.useRealTimers());

  it('beats at start and then every period, from a timer that never holds the process', () => {
    jest.useFakeTimers();
    const sent: ChildMessage[] = [];
    const beat = new LivenessBeat(
      (m) => sent.push(m),
      1000,
      () => undefined,
    );
    beat.start();
    expect(sent).toEqual([{ kind: 'alive', blockingMs: 0 }]);
    jest.advanceTimersByTime(3000);
    expect(sent).toHaveLength(4);
    beat.stop();
    jest.advanceTimersByTime(3000);
    expect(sent).toHaveLength(4);
  });

  it('announces a longer declared bound before the task starts, and drops it when it ends', () => {
    const sent: ChildMessage[] = [];
    const bounds: Record<string, number> = { cpu: 120_000, quick: 5_000 };
    const beat = new LivenessBeat(
      (m) => sent.push(m),
      1000,
      (name) => bounds[name],
    );
    beat.started(record('plain'));
    expect(sent).toEqual([]);
    beat.started(record('cpu'));
    expect(sent).toEqual([{ kind: 'alive', blockingMs: 120_000 }]);
    // A shorter bound beside a longer one needs no word.
    beat.started(record('quick'));
    expect(sent).toHaveLength(1);
    beat.ended(record('cpu'));
    expect(beat.blockingMs).toBe(5_000);
    beat.ended(record('quick'));
    expect(beat.blockingMs).toBe(0);
  });
});
