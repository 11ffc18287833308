import type { ProgressEntry } from '../../../lib/core/attempt-progress';
import { InvalidTaskProgressError } from '../../../lib/core/errors/invalid-task-progress.error';
import { ProgressBatcher } from '../../../lib/core/progress-batcher';
import { recordWith } from '../../../lib/core/record-with';
import { TaskContext } from '../../../lib/core/task-context';
import {
  MAX_PROGRESS_BYTES,
  finishedProgress,
  progressJson,
  recordWithProgress,
  storedProgress,
} from '../../../lib/core/task-progress';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResult } from '../../../lib/core/task-result';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
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

describe('finishedProgress', () => {
  const record = runningRecord('a', {}, 'host:1-0');

  it('is what a backend stores with the outcome of a record carrying progress, null without', () => {
    expect(finishedProgress({ ...record, progress: { n: 1 } })).toBe(storedProgress(1, '{"n":1}'));
    expect(finishedProgress({ ...record, progress: null })).toBe('[1,null]');
    expect(finishedProgress(record)).toBeNull();
  });
});

describe('TaskContext.progress', () => {
  const result = (record: TaskRecord) =>
    new TaskResult(record, { getResult: () => Promise.reject(new Error('none')) });
  const ended = (record: TaskRecord, status: TaskResultStatus): TaskRecord =>
    recordWith(record, {
      status,
      finishedAt: new Date(),
      errors: status === TaskResultStatus.FAILED ? [{ className: 'E', traceback: 'E' }] : [],
    });

  it('checks a value even without a store to write to, and the outcome carries the last one', async () => {
    const record = runningRecord('a');
    const context = new TaskContext(result(record));
    expect(context.endProgress(ended(record, TaskResultStatus.SUCCESSFUL))).toBeNull();
    context.progress(0.1);
    expect(() => context.progress(Symbol('x'))).toThrow(InvalidTaskProgressError);
    context.progress({ phase: 'end' });
    const finished = await context.endProgress(ended(record, TaskResultStatus.SUCCESSFUL));
    expect(finished).toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
      progress: { phase: 'end' },
    });
  });

  it("writes a retried attempt's last value on its own, and its record carries none", async () => {
    const writes: ProgressEntry[][] = [];
    const batcher = new ProgressBatcher((_alias, entries) => {
      writes.push([...entries]);
      return Promise.resolve();
    });
    const leased = runningRecord('a');
    const record: TaskRecord = { ...leased, task: { ...leased.task, retries: 1 } };
    const context = new TaskContext(result(record), null, batcher);
    context.progress(0.5);
    const retried = await context.endProgress(ended(record, TaskResultStatus.FAILED));
    expect(retried).not.toHaveProperty('progress');
    expect(writes.map((batch) => batch.map((entry) => entry.stored))).toEqual([['[1,0.5]']]);
  });
});
