import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';

import {
  BackendUnavailableError,
  InvalidBackendConfigError,
  InvalidTaskError,
  RedisBackend,
  Task,
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
} from '../../lib';
import { ThreadmillHealthIndicator } from '../../lib/health';
import { freePort } from '../helpers/free-port';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';

// Bad input through the public API (ThreadmillModule + TaskService on a real
// Redis): each case is a typed error whose message names what is wrong, and
// nothing is stored. Stored data that is bad (unknown task, corrupt JSON, huge
// data) needs a worker: test/e2e/bad-input.e2e-spec.ts runs those through the
// real pool.

@Injectable()
class BadInputTasks {
  @Task({ name: 'bad.echo' })
  echo(value: unknown): unknown {
    return value;
  }
}

/** A task whose name would break the key layout; provided only by the test that expects bootstrap to fail. */
@Injectable()
class BadlyNamedTasks {
  @Task({ name: 'bad:name' })
  run(): void {}
}

const KIB = 1024;

/** The module on a backend 'default' at `url` (for the cases where Redis cannot be used). */
async function bootstrap(
  url: string,
  options: Record<string, unknown> = {},
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ThreadmillModule.forRoot({
        backends: {
          default: { backend: RedisBackend, url, queues: ['default'], options },
        },
      }),
    ],
    providers: [BadInputTasks],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('bad input (public API, real Redis)', () => {
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.quit());

  describe('enqueue refuses, naming the task, and stores nothing', () => {
    let moduleRef: TestingModule;
    let tasks: TaskService;
    const alias = testAlias();

    beforeAll(async () => {
      moduleRef = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: {
              [alias]: {
                backend: RedisBackend,
                url: testRedisUrl(),
                queues: ['default'],
                options: { maxPayloadBytes: 4 * KIB },
              },
            },
          }),
        ],
        providers: [BadInputTasks],
      }).compile();
      await moduleRef.init();
      tasks = moduleRef.get(TaskService);
    });

    afterAll(async () => {
      await moduleRef.close();
      await removeAliasKeys(redis, alias);
    });

    afterEach(async () => {
      // Nothing of a refused enqueue reached Redis (the store's mark is written at connect).
      const [, keys] = await redis.scan('0', 'MATCH', `*{${alias}}*`, 'COUNT', 1000);
      expect(keys.filter((key) => !key.endsWith(':store-mark'))).toEqual([]);
    });

    const enqueue = (value: unknown, overrides = {}) =>
      tasks
        .task(BadInputTasks, 'echo')
        .using({ alias: alias, ...overrides })
        .enqueue(value);

    it.each([
      ['a function', () => 1, 'args[0] is a function'],
      ['undefined', undefined, 'args[0] is undefined'],
      ['a BigInt', BigInt(1), 'args[0] is a BigInt'],
      ['NaN', Number.NaN, 'args[0] is NaN'],
      ['a Date', new Date(0), 'args[0] is a Date'],
      ['a class instance', new Map(), 'args[0] is an instance of Map'],
      [
        'a cycle',
        (() => {
          const loop: Record<string, unknown> = {};
          loop.self = loop;
          return loop;
        })(),
        'args[0].self is a cycle',
      ],
    ])('arguments that are not JSON-safe: %s', async (_what, value, says) => {
      const error: unknown = await enqueue(value).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTaskError);
      expect((error as Error).message).toContain('Task "bad.echo"');
      expect((error as Error).message).toContain(says);
    });

    it('a payload over maxPayloadBytes, with its size and the limit', async () => {
      const error: unknown = await enqueue('x'.repeat(5 * KIB)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTaskError);
      expect((error as Error).message).toBe(
        `Task "bad.echo": its arguments are ${5 * KIB + 4} bytes of JSON, over the limit of ` +
          `${4 * KIB} bytes of backend "${alias}", so nothing was enqueued. Pass a reference ` +
          `(an id, a URL) instead of the data, or raise maxPayloadBytes.`,
      );
    });

    it('measures the payload in UTF-8 bytes, not characters', async () => {
      // 1,500 characters, 4,500 bytes: over a 4 KiB limit although shorter in characters.
      await expect(enqueue('€'.repeat(1500))).rejects.toThrow(/4504 bytes of JSON/);
    });

    it('refuses a bulk as a whole when one payload is over the limit', async () => {
      await expect(
        tasks.enqueueMany(BadInputTasks, 'echo', [['small'], ['x'.repeat(5 * KIB)]], {
          alias: alias,
        }),
      ).rejects.toThrow(InvalidTaskError);
    });

    it.each([
      [Number.NaN, 'priority NaN is invalid'],
      [Number.POSITIVE_INFINITY, 'priority Infinity is invalid'],
      [1.5, 'priority 1.5 is invalid'],
      [101, 'priority 101 is invalid'],
      [-101, 'priority -101 is invalid'],
    ])('priority %p', async (priority, says) => {
      await expect(enqueue(1, { priority })).rejects.toThrow(
        `Task "bad.echo": ${says}; use a whole number from -100 to 100.`,
      );
    });

    it('runAfter that is an invalid Date', async () => {
      await expect(enqueue(1, { runAfter: new Date('not a date') })).rejects.toThrow(
        'Task "bad.echo": runAfter Invalid Date is not a valid Date.',
      );
    });

    it.each(['a:b', 'a{b}', 'a b', ''])(
      'a queue name that would break the key layout: %p',
      async (queue) => {
        const error: unknown = await enqueue(1, { queue }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidTaskError);
        expect((error as Error).message).toContain(`queue "${queue}" is not configured`);
      },
    );

    it('a task name no key layout can hold (by name, as the CLI enqueues)', async () => {
      await expect(tasks.enqueueByName('bad {nope}', [[1]], { alias: alias })).rejects.toThrow(
        'The task name "bad {nope}" is invalid',
      );
    });

    it('a queue not configured, for a name this app does not register', async () => {
      await expect(
        tasks.enqueueByName('bad.nope', [[1]], { alias: alias, queue: 'nope' }),
      ).rejects.toThrow('Task "bad.nope": queue "nope" is not configured');
    });

    it('getResult of an id that does not exist', async () => {
      await expect(tasks.getResult('no-such-id', alias)).rejects.toThrow(
        new TaskResultDoesNotExist(
          `No task result with id "no-such-id" exists on backend "${alias}": it was never ` +
            `enqueued there or it expired after resultTtl.`,
        ),
      );
    });

    it('accepts a payload right at the limit (the bound is exact)', async () => {
      // A JSON string of 4 KiB - 4 characters is exactly 4 KiB with its brackets and quotes.
      const result = await enqueue('x'.repeat(4 * KIB - 4));
      expect(result.args).toEqual(['x'.repeat(4 * KIB - 4)]);
      await removeAliasKeys(redis, alias);
    });
  });

  it('the default limit is 1 MiB', async () => {
    const alias = testAlias();
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { [alias]: { backend: RedisBackend, url: testRedisUrl() } },
        }),
      ],
      providers: [BadInputTasks],
    }).compile();
    await moduleRef.init();
    try {
      const handle = moduleRef.get(TaskService).task(BadInputTasks, 'echo').using({ alias: alias });
      await expect(handle.enqueue('x'.repeat(KIB * KIB))).rejects.toThrow(
        /over the limit of 1048576 bytes/,
      );
    } finally {
      await moduleRef.close();
      await removeAliasKeys(redis, alias);
    }
  });

  describe('configuration that would break the key layout fails bootstrap', () => {
    it.each([
      [
        'queues',
        { queues: ['a:b'] },
        'option "queues" is invalid: The queue name "a:b" is invalid',
      ],
      [
        'maxPayloadBytes',
        { options: { maxPayloadBytes: 0 } },
        'option "maxPayloadBytes" must be a whole number of at least 1, got 0',
      ],
      ['maxPayloadBytes', { options: { maxPayloadBytes: 1.5 } }, 'got 1.5'],
    ])('%s', async (_option, config, says) => {
      const build = Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: { [testAlias()]: { backend: RedisBackend, url: testRedisUrl(), ...config } },
          }),
        ],
      }).compile();
      const error: unknown = await build.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidBackendConfigError);
      expect((error as Error).message).toContain(says);
    });

    it('a task name with a key separator', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: { default: { backend: RedisBackend, url: testRedisUrl() } },
          }),
        ],
        providers: [BadlyNamedTasks],
      }).compile();
      // Bootstrap stops at the explorer: no connection was opened (they are lazy), none to close.
      const error: unknown = await moduleRef.init().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTaskError);
      expect((error as Error).message).toContain('The task name "bad:name" is invalid');
    });

    it('a backend alias with a hash-tag brace', async () => {
      const build = Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: { 'a{b': { backend: RedisBackend, url: testRedisUrl() } },
          }),
        ],
      }).compile();
      await expect(build).rejects.toThrow(/The backend alias name "a\{b" is invalid/);
    });
  });

  describe('a Redis that cannot be used: BackendUnavailableError, bounded, secret not shown', () => {
    it('unreachable: enqueue fails within about connectTimeout', async () => {
      const port = await freePort();
      const moduleRef = await bootstrap(`redis://app:s3cret-pw@127.0.0.1:${port}`, {
        connectTimeout: 500,
      });
      try {
        const started = Date.now();
        const error: unknown = await moduleRef
          .get(TaskService)
          .enqueue(BadInputTasks, 'echo', [1])
          .catch((e: unknown) => e);
        expect(Date.now() - started).toBeLessThan(4000);
        expect(error).toBeInstanceOf(BackendUnavailableError);
        expect((error as Error).message).toContain(`redis://app:***@127.0.0.1:${port}`);
        expect((error as Error).message).toMatch(/ECONNREFUSED/);
        expect(JSON.stringify(error) + String((error as Error).stack)).not.toContain('s3cret-pw');
      } finally {
        await moduleRef.close();
      }
    });

    describe('with AUTH on', () => {
      let server: RedisServerHandle;
      beforeAll(async () => {
        server = await startRedisServer();
        // Set after start: the helper's readiness check needs an open PING.
        const setup = new Redis(server.url);
        await setup.config('SET', 'requirepass', 'right-password');
        setup.disconnect();
      });
      afterAll(() => server?.stop());

      it('a wrong password: the health check is down, says why, and shows no password', async () => {
        const alias = testAlias();
        const moduleRef = await Test.createTestingModule({
          imports: [
            ThreadmillModule.forRoot({
              backends: {
                [alias]: {
                  backend: RedisBackend,
                  url: `redis://:wrong-password@127.0.0.1:${server.port}`,
                  options: { connectTimeout: 500 },
                },
              },
            }),
          ],
          providers: [ThreadmillHealthIndicator],
        }).compile();
        await moduleRef.init();
        try {
          const result = await moduleRef
            .get(ThreadmillHealthIndicator)
            .isHealthy('threadmill', { alias: alias, timeoutMs: 3000 });
          expect(result.threadmill.status).toBe('down');
          const shown = JSON.stringify(result);
          expect(shown).toMatch(/WRONGPASS|invalid password|NOAUTH/i);
          expect(shown).not.toContain('wrong-password');
        } finally {
          await moduleRef.close();
        }
      });

      it('a wrong password: getResult and enqueue fail typed, the password nowhere', async () => {
        const moduleRef = await bootstrap(`redis://:wrong-password@127.0.0.1:${server.port}`, {
          connectTimeout: 500,
        });
        try {
          const service = moduleRef.get(TaskService);
          for (const call of [
            () => service.enqueue(BadInputTasks, 'echo', [1]),
            () => service.getResult('any-id'),
          ]) {
            const started = Date.now();
            const error: unknown = await call().catch((e: unknown) => e);
            expect(Date.now() - started).toBeLessThan(4000);
            expect(error).toBeInstanceOf(BackendUnavailableError);
            expect((error as Error).message).toMatch(/WRONGPASS|invalid password|NOAUTH/i);
            expect(String((error as Error).stack)).not.toContain('wrong-password');
          }
        } finally {
          await moduleRef.close();
        }
      });
    });
  });
});
