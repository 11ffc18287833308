import {
  InvalidTaskProgressError,
  MAX_PROGRESS_BYTES,
  ProgressThrottle,
  TaskContext,
  TaskResult,
  progressJson,
  recordWithProgress,
  storedProgress,
} from '../../../lib/core';
import { runningRecord } from '../../helpers/ready-record';

describe('progressJson (the guard)', () => {
  it.each([
    [0.5, '0.5'],
    [42, '42'],
    ['copying', '"copying"'],
    [null, 'null'],
    [{ done: 3, of: 8, phase: 'copy' }, '{"done":3,"of":8,"phase":"copy"}'],
    [[1, 2], '[1,2]'],
  ])('accepts %j as %s', (value, json) => {
    expect(progressJson(value, 't')).toBe(json);
  });

  it.each([
    ['NaN', Number.NaN, /is NaN/],
    ['Infinity', Number.POSITIVE_INFINITY, /is Infinity/],
    ['undefined', undefined, /progress is undefined/],
    ['a function', () => 1, /progress is a function/],
    ['a Date', new Date(0), /progress is a Date/],
    ['a nested BigInt', { n: 1n }, /progress\.n is a BigInt/],
  ])('refuses %s with InvalidTaskProgressError naming the task', (_label, value, message) => {
    const refuse = () => progressJson(value, 'Import.rows');
    expect(refuse).toThrow(InvalidTaskProgressError);
    expect(refuse).toThrow(message);
    expect(refuse).toThrow(/Import\.rows/);
  });

  it('refuses a cycle', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => progressJson(cycle, 't')).toThrow(InvalidTaskProgressError);
  });

  it(`accepts up to ${MAX_PROGRESS_BYTES} bytes of JSON and counts bytes, not characters`, () => {
    const fits = 'x'.repeat(MAX_PROGRESS_BYTES - 2);
    expect(progressJson(fits, 't')).toHaveLength(MAX_PROGRESS_BYTES);
    expect(() => progressJson(`${fits}x`, 't')).toThrow(
      new RegExp(`${MAX_PROGRESS_BYTES + 1} bytes as JSON, over the ${MAX_PROGRESS_BYTES}-byte`),
    );
    // 400 characters of 3 bytes each: under the limit in characters, over it in bytes.
    expect(() => progressJson('€'.repeat(400), 't')).toThrow(InvalidTaskProgressError);
  });
});

describe('recordWithProgress', () => {
  const record = runningRecord('a', {}, 'host:1-0');

  it("adds the stored value when it is the record's current attempt", () => {
    expect(recordWithProgress(record, storedProgress(1, '{"n":1}')).progress).toEqual({ n: 1 });
  });

  it("leaves out an earlier attempt's value, nothing stored, and unreadable text", () => {
    for (const stored of [storedProgress(2, '1'), null, undefined, 'not json', '[1]', '{}']) {
      const read = recordWithProgress(record, stored);
      expect(read).toBe(record);
      expect('progress' in read).toBe(false);
    }
  });
});

describe('ProgressThrottle', () => {
  const INTERVAL = 500;
  let writes: { stored: string; value: unknown; at: number }[];
  let store: jest.Mock<Promise<void>, [string, unknown]>;

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    writes = [];
    store = jest.fn((stored: string, value: unknown) => {
      writes.push({ stored, value, at: Date.now() });
      return Promise.resolve();
    });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes at most once per interval, each time the latest value, and the last one on finish', async () => {
    const throttle = new ProgressThrottle('t', 3, store, INTERVAL);
    // A report every millisecond for a second.
    for (let ms = 0; ms < 1000; ms++) {
      throttle.report(ms);
      await jest.advanceTimersByTimeAsync(1);
    }
    await throttle.finish();
    expect(writes.map((w) => w.at)).toEqual([500, 1000]);
    expect(writes.map((w) => w.value)).toEqual([499, 999]);
    expect(writes[0].stored).toBe('[3,499]');
    expect(writes.at(-1)?.stored).toBe('[3,999]');
  });

  it('stores nothing on finish when nothing waits, and drops reports after it', async () => {
    const throttle = new ProgressThrottle('t', 1, store, INTERVAL);
    throttle.report({ phase: 'a' });
    await jest.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(writes).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(writes).toHaveLength(1);
    await throttle.finish();
    throttle.report({ phase: 'late' });
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(writes.map((w) => w.value)).toEqual([{ phase: 'a' }]);
  });

  it('keeps the waiting value when a report is refused', async () => {
    const throttle = new ProgressThrottle('t', 1, store, INTERVAL);
    throttle.report(0.5);
    expect(() => throttle.report(() => 1)).toThrow(InvalidTaskProgressError);
    await throttle.finish();
    expect(writes.map((w) => w.value)).toEqual([0.5]);
  });

  it('never overlaps writes: one due while another is under way waits, and finish waits for both', async () => {
    let release: () => void = () => undefined;
    const slow = jest.fn((stored: string, value: unknown) => {
      writes.push({ stored, value, at: Date.now() });
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const throttle = new ProgressThrottle('t', 1, slow, INTERVAL);
    throttle.report(1);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    throttle.report(2);
    await jest.advanceTimersByTimeAsync(3 * INTERVAL);
    expect(writes.map((w) => w.value)).toEqual([1]);
    const finishing = throttle.finish();
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(writes.map((w) => w.value)).toEqual([1, 2]);
    release();
    await finishing;
  });
});

describe('TaskContext.progress', () => {
  it('checks a value even without a store to write to (a context built by hand)', async () => {
    const context = new TaskContext(
      new TaskResult(runningRecord('a'), { getResult: () => Promise.reject(new Error('none')) }),
    );
    expect(context.finishProgress()).toBeNull();
    context.progress(0.1);
    expect(() => context.progress(Symbol('x'))).toThrow(InvalidTaskProgressError);
    await context.finishProgress();
  });
});
