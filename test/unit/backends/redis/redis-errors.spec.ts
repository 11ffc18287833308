import { ReplyError } from 'ioredis';

import { classifyRedisFailure, redisCallError } from '../../../../lib/backends/redis/redis-errors';
import { BackendCommandError } from '../../../../lib/core/errors/backend-command.error';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../../../lib/core/errors/enqueue-outcome-unknown.error';
import { InvalidTaskError } from '../../../../lib/core/errors/invalid-task.error';
import { StoreFullError } from '../../../../lib/core/errors/store-full.error';

/** An error reply as ioredis rejects a command with it. */
function reply(message: string, command = { name: 'zadd', args: ['k'] }): Error {
  return Object.assign(new ReplyError(message), { command });
}

const context = {
  alias: 'orders',
  maskedTarget: 'redis://app:***@db:6379/0',
  mask: (text: string) => text.split('hunter2').join('***'),
  lastConnectionError: null,
};

describe('classifyRedisFailure', () => {
  it.each([
    ['OOM command not allowed when used memory > maxmemory.', 'full'],
    ['WRONGTYPE Operation against a key holding the wrong kind of value', 'refused'],
    ['NOSCRIPT No matching script. Please use EVAL.', 'refused'],
    ['ERR user_script:1: Script attempted to access nonexistent global variable', 'refused'],
    ['BUSYKEY Target key name already exists.', 'refused'],
    ['BUSYGROUP Consumer Group name already exists', 'refused'],
    ['WRONGPASS invalid username-password pair or user is disabled.', 'unreachable'],
    [
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      'refusedForNow',
    ],
    ["READONLY You can't write against a read only replica.", 'refusedForNow'],
    ['LOADING Redis is loading the dataset in memory', 'refusedForNow'],
    [
      'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      'refusedForNow',
    ],
    [
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
      'refusedForNow',
    ],
    ['CLUSTERDOWN The cluster is down', 'refusedForNow'],
    ['TRYAGAIN Multiple keys request during rehashing of slot', 'refusedForNow'],
    ['NOREPLICAS Not enough good replicas to write.', 'refusedForNow'],
  ])('reads the error reply "%s" as %s', (message, kind) => {
    expect(classifyRedisFailure(reply(message)).kind).toBe(kind);
  });

  it('never takes a refused command for one that may have run', () => {
    expect(classifyRedisFailure(reply('WRONGPASS invalid password'))).toMatchObject({
      mayHaveRun: false,
    });
  });

  it.each([
    // Rejected before the write: the command never reached Redis.
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), false],
    [new Error('Connection is closed.'), false],
    [
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
        name: 'MaxRetriesPerRequestError',
      }),
      false,
    ],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), false],
    // Written, or queued to be written later: the outcome is unknown.
    [new Error('Command timed out'), true],
    [
      new Error(
        'the connection dropped before the reply: the command may or may not have been applied',
      ),
      true,
    ],
    [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    [
      Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      true,
    ],
  ])('reads %s as unreachable, may have run: %s', (error, mayHaveRun) => {
    expect(classifyRedisFailure(error)).toMatchObject({ kind: 'unreachable', mayHaveRun });
  });

  it.each([
    new RangeError('Maximum call stack size exceeded'),
    new TypeError("Cannot read properties of undefined (reading 'id')"),
    Object.assign(new TypeError('The "data" argument must be a string'), {
      code: 'ERR_INVALID_ARG_TYPE',
    }),
    'a string',
    null,
  ])('reads %s as a bug, not a Redis failure', (error) => {
    expect(classifyRedisFailure(error).kind).toBe('bug');
  });

  it('names our script an error reply came from, by the SHA1 of its source', () => {
    // The scripts register their SHA1s when a RedisScripts defines them.
    const failure = classifyRedisFailure(
      reply('ERR user_script:9: oops', { name: 'evalsha', args: ['0'.repeat(40)] }),
    );
    expect(failure).toEqual({
      kind: 'refused',
      command: 'a Lua script',
      reply: 'ERR user_script:9: oops',
    });
  });
});

describe('redisCallError', () => {
  it('makes a refused write a StoreFullError that says the store is full', () => {
    const error = redisCallError(reply('OOM command not allowed.'), context);
    expect(error).toBeInstanceOf(StoreFullError);
    expect((error as StoreFullError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/Redis at redis:\/\/app:\*\*\*@db:6379\/0 is full/);
    expect((error as Error).message).toContain('ZADD');
  });

  it("makes any other error reply a BackendCommandError with Redis's words, not retryable", () => {
    const error = redisCallError(reply('WRONGTYPE Operation against a key.'), context);
    expect(error).toBeInstanceOf(BackendCommandError);
    expect(error).toMatchObject({ command: 'ZADD', reply: 'WRONGTYPE Operation against a key.' });
    expect((error as BackendCommandError).retryable).toBe(false);
  });

  it.each([
    [
      'MISCONF Redis is configured to save RDB snapshots, but it is unable to persist to disk.',
      /persistence files/,
    ],
    ["READONLY You can't write against a read only replica.", /failover .* names a replica/],
    ['LOADING Redis is loading the dataset in memory', /loaded its data/],
    ['BUSY Redis is busy running a script.', /script it runs ends/],
    ['MASTERDOWN Link with MASTER is down.', /its master is back/],
  ])(
    'makes "%s", which clears by itself, a retryable BackendUnavailableError saying when',
    (text, when) => {
      // Refused before it ran: never taken for a lost reply.
      const lostReply = (reason: string) => new EnqueueOutcomeUnknownError(reason, ['a']);
      const error = redisCallError(reply(text), context, lostReply);
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect((error as BackendUnavailableError).retryable).toBe(true);
      const { message } = error as Error;
      expect(message).toContain('refused ZADD for now');
      expect(message).toContain(text.replace(/\.$/, ''));
      expect(message).toMatch(/nothing of it ran/);
      expect(message).toMatch(when);
      expect(message).toMatch(/retry the same call/);
    },
  );

  it('returns a bug unchanged, and our own errors too', () => {
    const bug = new RangeError('Maximum call stack size exceeded');
    expect(redisCallError(bug, context)).toBe(bug);
    const ours = new InvalidTaskError('no');
    expect(redisCallError(ours, context)).toBe(ours);
  });

  it('makes a lost reply what lostReply says, and a refused connection BackendUnavailableError', () => {
    const lostReply = (reason: string) => new EnqueueOutcomeUnknownError(reason, ['a']);
    const lost = redisCallError(new Error('Command timed out'), context, lostReply);
    expect(lost).toBeInstanceOf(EnqueueOutcomeUnknownError);
    expect((lost as Error).message).toBe('Command timed out');
    const refused = redisCallError(new Error('Connection is closed.'), context, lostReply);
    expect(refused).toBeInstanceOf(BackendUnavailableError);
  });

  it('masks secrets and adds the connection error that says why', () => {
    const error = redisCallError(new Error('WRONG hunter2'), {
      ...context,
      lastConnectionError: 'connect ECONNREFUSED 10.0.0.1:6379',
    });
    expect((error as Error).message).not.toContain('hunter2');
    expect((error as Error).message).toContain('last connection error: connect ECONNREFUSED');
  });
});
