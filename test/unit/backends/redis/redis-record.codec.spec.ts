import { RedisRecordCodec } from '../../../../lib/backends/redis/redis-record.codec';
import { CorruptTaskDataError } from '../../../../lib/core/errors/corrupt-task-data.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { readyRecord } from '../../../helpers/ready-record';

const ALIAS = 'codec';
const codec = new RedisRecordCodec(ALIAS, 1024);

/** The hash a task leased at `startedAt` by worker `w` holds, as HMGET of TASK_HASH_FIELDS returns it. */
function leasedHash(record: TaskRecord, startedAt: Date, outcome: string | null) {
  const at = String(startedAt.getTime());
  return [codec.encodeLive(record), 'RUNNING', at, at, '["w"]', outcome];
}

function leased(record: TaskRecord, startedAt: Date): TaskRecord {
  return {
    ...record,
    status: TaskResultStatus.RUNNING,
    startedAt,
    lastAttemptedAt: startedAt,
    workerIds: ['w'],
  };
}

describe('RedisRecordCodec: a finished task', () => {
  const startedAt = new Date(1_700_000_000_000);
  const finishedAt = new Date(1_700_000_000_250);
  const enqueued = readyRecord(ALIAS, { args: ['payload', { nested: [1, 2] }], priority: 3 });
  /** `enqueued` leased, then finished with `changes`: what reading its hash back gives. */
  const finishAndRead = (changes: Partial<TaskRecord>): [TaskRecord, TaskRecord | null] => {
    const done = { ...leased(enqueued, startedAt), finishedAt, ...changes };
    const outcome = codec.encodeFinished(done);
    return [done, codec.decodeStored(done.id, leasedHash(enqueued, startedAt, outcome))];
  };

  it('encodes what the worker changed, and reads back the whole record with the enqueued data', () => {
    const done: TaskRecord = {
      ...leased(enqueued, startedAt),
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt,
      workerIds: ['w-3'],
      returnValue: { sum: 3 },
    };
    const outcome = codec.encodeFinished(done);
    expect(outcome).not.toContain('payload');
    expect(JSON.parse(outcome)).toEqual({
      s: 'SUCCESSFUL',
      f: finishedAt.getTime(),
      w: ['w-3'],
      r: { sum: 3 },
    });
    expect(codec.decodeStored(done.id, leasedHash(enqueued, startedAt, outcome))).toEqual(done);
  });

  it('carries the progress a finished record has in its outcome, read in place of the field; none costs nothing', () => {
    const done: TaskRecord = {
      ...leased(enqueued, startedAt),
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt,
      returnValue: null,
    };
    const plain = codec.encodeFinished(done);
    expect(codec.encodeFinished({ ...done, progress: undefined })).toBe(plain);
    const carried = codec.encodeFinished({ ...done, progress: { done: 8 } });
    expect(carried).toBe(`${plain.slice(0, -1)},"p":{"done":8}}`);
    // An earlier write in the hash's progress field: the outcome's value wins, else it is read.
    const field = '[1,{"done":4}]';
    const hash = (outcome: string) => [...leasedHash(enqueued, startedAt, outcome), field];
    expect(codec.decodeStored(done.id, hash(carried))?.progress).toEqual({ done: 8 });
    expect(codec.decodeStored(done.id, hash(plain))?.progress).toEqual({ done: 4 });
  });

  it('stores null for a return value JSON has no text for, so the outcome stays valid', () => {
    for (const returnValue of [undefined, () => 1, Symbol('s')]) {
      const [, read] = finishAndRead({ status: TaskResultStatus.SUCCESSFUL, returnValue });
      expect(read?.returnValue).toBeNull();
    }
  });

  it('reads a failed task back with all its errors and no return value', () => {
    const errors = [
      { className: 'Error', traceback: 'Error: first' },
      { className: 'RangeError', traceback: 'RangeError: second' },
    ];
    const [done, read] = finishAndRead({ status: TaskResultStatus.FAILED, errors });
    expect(read).toEqual(done);
    expect(read).not.toHaveProperty('returnValue');
  });

  it('reads a whole outcome without the data, for a task whose data could not be read', () => {
    const unreadable = codec.unreadable('ghost', 'default', finishedAt, ['w'], {
      className: 'CorruptTaskDataError',
      traceback: 'its task data is missing',
    });
    const values = [null, null, null, null, null, codec.encodeFinished(unreadable)];
    expect(codec.decodeStored('ghost', values)).toEqual(unreadable);
  });

  it('is null when nothing is stored, and live while no outcome is', () => {
    expect(codec.decodeStored('none', null)).toBeNull();
    expect(codec.decodeStored('none', [null, null, null, null, null, null])).toBeNull();
    const live = codec.decodeStored(enqueued.id, leasedHash(enqueued, startedAt, null));
    expect(live).toEqual(leased(enqueued, startedAt));
  });

  it('refuses an outcome that is not ours, and reads one of any size (a return value has no limit)', () => {
    const read = (outcome: string) => () =>
      codec.decodeStored(enqueued.id, leasedHash(enqueued, startedAt, outcome));
    expect(read('{not json')).toThrow(CorruptTaskDataError);
    expect(read('{"s":"RUNNING","w":[]}')).toThrow(/outcome has malformed fields/);
    expect(read('{"s":"FAILED"}')).toThrow(/outcome has malformed fields/);
    const [, large] = finishAndRead({
      status: TaskResultStatus.SUCCESSFUL,
      returnValue: 'x'.repeat(5_000_000),
    });
    expect(large?.returnValue).toHaveLength(5_000_000);
  });
});

describe('RedisRecordCodec: a trace context', () => {
  const traceContext = {
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    tracestate: 'vendor=opaque',
  };
  const noFields = RedisRecordCodec.mutableFields(null);

  it("keeps a task's trace context in its data, read back as it was", () => {
    const record = readyRecord(ALIAS);
    const traced = { ...record, task: { ...record.task, traceContext } };
    const data = codec.encodeLive(traced);
    expect(JSON.parse(data).task.traceContext).toEqual(traceContext);
    expect(codec.decodeLive(traced.id, data, noFields)).toEqual(traced);
  });

  it('writes no key for a task enqueued outside a trace', () => {
    const record = readyRecord(ALIAS);
    const data = codec.encodeLive(record);
    expect(data).not.toContain('traceContext');
    expect('traceContext' in codec.decodeLive(record.id, data, noFields).task).toBe(false);
  });
});

describe('RedisRecordCodec: the data prefix of a task name', () => {
  it("starts the data of every task of that name, whatever its options, and no other name's", () => {
    const name = 'mail.send "fast"\\é';
    const prefix = RedisRecordCodec.dataPrefixOfName(name);
    const plain = readyRecord(ALIAS, { name });
    const full = readyRecord(ALIAS, { name, priority: 4, runAfter: new Date(5), args: [1] });
    for (const record of [
      plain,
      { ...full, task: { ...full.task, retries: 2, backend: 'other' } },
    ]) {
      expect(codec.encodeLive(record).startsWith(prefix)).toBe(true);
    }
    const longer = readyRecord(ALIAS, { name: `${name}x` });
    expect(codec.encodeLive(longer).startsWith(prefix)).toBe(false);
  });
});
