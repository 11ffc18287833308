import type { ProgressEntry } from '../../../lib/core/attempt-progress';
import { InvalidTaskProgressError } from '../../../lib/core/errors/invalid-task-progress.error';
import { ProgressBatcher } from '../../../lib/core/progress-batcher';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { runningRecord } from '../../helpers/ready-record';

const INTERVAL = 500;

/** One store call as the batcher made it: when, for which alias, what. */
interface Call {
  at: number;
  alias: string;
  entries: { id: string; stored: string; value: unknown }[];
}

describe('ProgressBatcher', () => {
  let calls: Call[];
  /** Settles the store call under way when set (a slow store); immediate otherwise. */
  let slow: (() => void)[] | null;
  let batcher: ProgressBatcher;

  const store = (alias: string, entries: readonly ProgressEntry[]): Promise<void> => {
    calls.push({
      at: Date.now(),
      alias,
      entries: entries.map(({ record, stored, value }) => ({ id: record.id, stored, value })),
    });
    if (slow === null) return Promise.resolve();
    const waiting = slow;
    return new Promise<void>((resolve) => waiting.push(resolve));
  };

  const attempts = (count: number, alias = 'a'): { record: TaskRecord }[] =>
    Array.from({ length: count }, (_, i) => ({
      record: runningRecord(alias, { id: `${alias}${i}` }),
    }));

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    calls = [];
    slow = null;
    batcher = new ProgressBatcher(store, INTERVAL);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes the latest value of every waiting attempt in one call per interval, and none on end', async () => {
    const reports = attempts(30).map(({ record }) => batcher.attempt(record));
    // Each of 30 tasks reports every millisecond for 990 ms.
    for (let ms = 0; ms < 990; ms++) {
      for (const attempt of reports) attempt.report(ms);
      await jest.advanceTimersByTimeAsync(1);
    }
    const values = await Promise.all(reports.map((attempt) => attempt.end()));
    expect(values).toEqual(reports.map(() => 989));
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(calls.map((call) => [call.at, call.entries.length])).toEqual([[INTERVAL, 30]]);
    expect(calls[0].entries[0]).toEqual({ id: 'a0', stored: '[1,499]', value: 499 });
    // Nothing waits: no timer is left behind.
    expect(jest.getTimerCount()).toBe(0);
  });

  it('writes each attempt at most once per interval, and only what was reported since its last write', async () => {
    const [one, two] = attempts(2).map(({ record }) => batcher.attempt(record));
    one.report({ phase: 'copy' });
    await jest.advanceTimersByTimeAsync(INTERVAL);
    // Reported once the interval's write was made: it waits a whole interval more.
    one.report(0.5);
    await jest.advanceTimersByTimeAsync(INTERVAL - 1);
    two.report(1);
    await jest.advanceTimersByTimeAsync(1);
    await jest.advanceTimersByTimeAsync(3 * INTERVAL);
    expect(calls.map((call) => [call.at, call.entries.map((entry) => entry.value)])).toEqual([
      [INTERVAL, [{ phase: 'copy' }]],
      [2 * INTERVAL, [0.5, 1]],
    ]);
    expect(calls[0].entries[0].stored).toBe('[1,{"phase":"copy"}]');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('makes one call per alias', async () => {
    for (const { record } of [...attempts(2, 'a'), ...attempts(1, 'b')]) {
      batcher.attempt(record).report(1);
    }
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(calls.map((call) => [call.alias, call.entries.map((entry) => entry.id)])).toEqual([
      ['a', ['a0', 'a1']],
      ['b', ['b0']],
    ]);
  });

  it('keeps the value waiting when a report is refused', async () => {
    const [{ record }] = attempts(1);
    const attempt = batcher.attempt(record);
    attempt.report(0.5);
    expect(() => attempt.report(() => 1)).toThrow(InvalidTaskProgressError);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(calls.map((call) => call.entries[0].value)).toEqual([0.5]);
    await expect(attempt.end()).resolves.toBe(0.5);
  });

  it('never overlaps the writes of one attempt, ends after its write under way, and writes nothing after', async () => {
    const settle: (() => void)[] = [];
    slow = settle;
    const [{ record }] = attempts(1);
    const attempt = batcher.attempt(record);
    attempt.report(1);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    attempt.report(2);
    // The first write is still under way: the second waits, interval after interval.
    await jest.advanceTimersByTimeAsync(3 * INTERVAL);
    expect(calls.map((call) => call.entries[0].value)).toEqual([1]);
    let ended = false;
    const ending = attempt.end().then((value) => {
      ended = true;
      return value;
    });
    await jest.advanceTimersByTimeAsync(0);
    expect(ended).toBe(false);
    settle.shift()?.();
    await expect(ending).resolves.toBe(2);
    attempt.report(3);
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(calls.map((call) => call.entries[0].value)).toEqual([1]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('writes what waits on its own when an attempt ends writing (a retry), after the write under way', async () => {
    const settle: (() => void)[] = [];
    slow = settle;
    const [one, two] = attempts(2).map(({ record }) => batcher.attempt(record));
    one.report(1);
    two.report(1);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    one.report(2);
    two.report(2);
    const ending = one.endWriting();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    settle.shift()?.();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((call) => call.entries.map((entry) => [entry.id, entry.value]))).toEqual([
      [
        ['a0', 1],
        ['a1', 1],
      ],
      [['a0', 2]],
    ]);
    settle.shift()?.();
    await ending;
    // The other attempt's value still goes with the next interval.
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(calls.at(-1)?.entries.map((entry) => [entry.id, entry.value])).toEqual([['a1', 2]]);
  });
});
