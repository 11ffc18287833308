import { CorruptTaskDataError } from '../../../lib/core/errors/corrupt-task-data.error';
import { InvalidTaskError } from '../../../lib/core/errors/invalid-task.error';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import {
  assertJsonSafe,
  deserializeRecord,
  errorToRecord,
  normalizeJson,
  serializeRecord,
} from '../../../lib/core/task-serializer';
import { MAX_JSON_DEPTH } from '../../../lib/core/threadmill.constants';

const record: TaskRecord = {
  id: 'id-1',
  task: {
    name: 'Mail.send',
    queue: 'emails',
    priority: 5,
    runAfter: new Date(5000),
    backend: 'default',
  },
  status: TaskResultStatus.SUCCESSFUL,
  enqueuedAt: new Date(1000),
  startedAt: new Date(2000),
  finishedAt: new Date(3000),
  lastAttemptedAt: new Date(2000),
  args: [1, 'two', { three: [3] }],
  errors: [],
  workerIds: ['host:1-0'],
  returnValue: { ok: true },
};

describe('task serializer', () => {
  describe('assertJsonSafe', () => {
    it.each([
      ['a function', [() => 1], 'args[0] is a function'],
      ['undefined', [undefined], 'args[0] is undefined'],
      ['a BigInt', [{ n: BigInt(1) }], 'args[0].n is a BigInt'],
      ['a symbol', [Symbol('s')], 'args[0] is a symbol'],
      ['NaN', [NaN], 'args[0] is NaN'],
      ['Infinity', [[Infinity]], 'args[0][0] is Infinity'],
      ['a Date', [new Date(0)], 'args[0] is a Date'],
      ['a class instance', [new Map()], 'args[0] is an instance of Map'],
      // eslint-disable-next-line no-sparse-arrays -- the hole is what is tested
      ['a sparse array', [[1, , 3]], 'args[0][1] is a hole'],
    ])('refuses %s and names where it is', (_label, args, message) => {
      expect(() => assertJsonSafe(args, 'Mail.send', 'args')).toThrow(InvalidTaskError);
      expect(() => assertJsonSafe(args, 'Mail.send', 'args')).toThrow(
        new RegExp(`Task "Mail\\.send": ${message.replace(/[.[\]]/g, '\\$&')}`),
      );
    });

    it('refuses a cycle', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(() => assertJsonSafe([cyclic], 'T', 'args')).toThrow(/args\[0\]\.self is a cycle/);
    });

    /** The args list holding one value nested `levels` deep, the list itself counting as one. */
    const nestedArgs = (levels: number, inner: (value: unknown) => unknown): unknown[] => {
      let value: unknown = 'leaf';
      for (let level = 1; level < levels; level++) value = inner(value);
      return [value];
    };

    it('accepts args nested exactly MAX_JSON_DEPTH levels, the list itself counted', () => {
      expect(MAX_JSON_DEPTH).toBe(100);
      expect(() =>
        assertJsonSafe(
          nestedArgs(MAX_JSON_DEPTH, (v) => [v]),
          'T',
          'args',
        ),
      ).not.toThrow();
      expect(() =>
        assertJsonSafe(
          nestedArgs(MAX_JSON_DEPTH, (v) => ({ v })),
          'T',
          'args',
        ),
      ).not.toThrow();
    });

    it.each([
      ['one level too deep, in arrays', MAX_JSON_DEPTH + 1, (v: unknown) => [v]],
      ['one level too deep, in objects', MAX_JSON_DEPTH + 1, (v: unknown) => ({ v })],
      ['5,000 levels deep', 5000, (v: unknown) => [v]],
      ['100,000 levels deep', 100_000, (v: unknown) => ({ v })],
    ])(
      'refuses args nested %s with InvalidTaskError, not a stack overflow',
      (_l, levels, inner) => {
        const args = nestedArgs(levels, inner);
        expect(() => assertJsonSafe(args, 'Mail.send', 'args')).toThrow(InvalidTaskError);
        expect(() => assertJsonSafe(args, 'Mail.send', 'args')).toThrow(
          'Task "Mail.send": the arrays and objects of its args are nested more than 100 levels deep.',
        );
      },
    );

    it('accepts JSON values, shared non-cyclic references and null-prototype objects', () => {
      const shared = { a: 1 };
      const bare = Object.create(null) as Record<string, unknown>;
      bare.x = 'y';
      expect(() =>
        assertJsonSafe([null, true, 1.5, 's', [shared, shared], bare], 'T', 'args'),
      ).not.toThrow();
    });
  });

  it('round-trips a record through its stored JSON', () => {
    expect(deserializeRecord('id-1', serializeRecord(record))).toEqual(record);
  });

  it('drops returnValue unless the task succeeded', () => {
    const failed = { ...record, status: TaskResultStatus.FAILED };
    expect(deserializeRecord('id-1', serializeRecord(failed))).not.toHaveProperty('returnValue');
  });

  it.each([
    ['not JSON', '{nope'],
    ['missing or malformed fields', '{"id":"x"}'],
    ['missing or malformed fields', 'null'],
  ])('reports %s as CorruptTaskDataError', (reason, text) => {
    expect(() => deserializeRecord('id-9', text)).toThrow(CorruptTaskDataError);
    expect(() => deserializeRecord('id-9', text)).toThrow(`task id-9 cannot be read (${reason})`);
  });

  it('normalizes a return value as JSON stores it', () => {
    expect(normalizeJson(undefined)).toBeNull();
    expect(normalizeJson({ a: undefined, b: 1 })).toEqual({ b: 1 });
  });

  it('records thrown Errors and non-Errors readably', () => {
    class Boom extends Error {
      override name = 'Boom';
    }
    expect(errorToRecord(new Boom('bad'))).toEqual({
      className: 'Boom',
      traceback: expect.stringContaining('Boom: bad'),
    });
    expect(errorToRecord('plain string')).toEqual({
      className: 'string',
      traceback: 'Non-Error thrown: plain string',
    });
    expect(errorToRecord({ code: 7 })).toEqual({
      className: 'Object',
      traceback: 'Non-Error thrown: {"code":7}',
    });
  });
});
