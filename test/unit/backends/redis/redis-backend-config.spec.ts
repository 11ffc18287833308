import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

import { redisBackendConfigFromEnv } from '../../../../lib/backends/redis/redis-backend-config.factory';
import { parseRedisBackendConfig } from '../../../../lib/backends/redis/redis-backend-config.parser';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// RedisBackend connects lazily, so constructing one here does no I/O.
const build = (config: { url?: string; queues?: string[]; options?: Record<string, unknown> }) =>
  new RedisBackend('orders', { backend: RedisBackend, ...config }, storeRules);

describe('RedisBackend configuration', () => {
  it('applies the documented defaults', () => {
    const settings = parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      url: 'redis://localhost:6379',
    });
    expect(settings).toMatchObject({
      queues: ['default'],
      leaseTtl: 3_600_000,
      resultTtl: 86_400_000,
      maintenanceInterval: 1000,
      batchSize: 100,
      allowEviction: false,
      requirePersistence: false,
      prefix: 'threadmill',
    });
    expect(
      parseRedisBackendConfig('orders', {
        backend: RedisBackend,
        url: 'redis://localhost:6379',
        options: { requirePersistence: true },
      }).requirePersistence,
    ).toBe(true);
    expect(build({ url: 'redis://localhost' }).maintenanceIntervalMs).toBe(1000);
  });

  it.each([
    [{ leaseTtl: -1 }, /backend "orders": option "leaseTtl" must be a positive whole number/],
    [
      { resultTtl: 1.5 },
      /option "resultTtl" must be a positive whole number of milliseconds, got 1.5/,
    ],
    [{ maintenanceInterval: '1000' }, /option "maintenanceInterval"/],
    [{ batchSize: 0 }, /option "batchSize" must be a whole number of at least 1/],
    [{ allowEviction: 'yes' }, /option "allowEviction" must be true or false, got "yes"/],
    [{ requirePersistence: 1 }, /option "requirePersistence" must be true or false, got 1/],
    [{ leaseTTL: 5 }, /option "leaseTTL" is not an option of RedisBackend \(known: .*leaseTtl/],
  ])('refuses options %j, naming alias and option', (options, message) => {
    expect(() => build({ url: 'redis://localhost', options })).toThrow(InvalidBackendConfigError);
    expect(() => build({ url: 'redis://localhost', options })).toThrow(message);
  });

  it.each(['has space', 'curly{', 'curly}', 'co:lon', ''])(
    'refuses the queue name %j, which would break the key layout',
    (queue) => {
      expect(() => build({ url: 'redis://localhost', queues: ['default', queue] })).toThrow(
        /option "queues" is invalid: The queue name .* is invalid/,
      );
    },
  );

  it('takes a key prefix named like an alias', () => {
    const settings = parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      url: 'redis://localhost:6379',
      options: { prefix: 'billing-app.v2' },
    });
    expect(settings.prefix).toBe('billing-app.v2');
  });

  it.each([
    ['with whitespace', 'has space', '"has space"'],
    ['with a colon', 'a:b', '"a:b"'],
    ['with braces', '{billing}', '"\\{billing\\}"'],
    ['that is empty', '', '""'],
    ['over 200 characters', 'x'.repeat(201), '"x{201}"'],
    ['that is no string', 7, '7'],
  ])('refuses a key prefix %s, naming alias and option', (_case, prefix, shownPrefix) => {
    const attempt = () => build({ url: 'redis://localhost', options: { prefix } });
    expect(attempt).toThrow(InvalidBackendConfigError);
    expect(attempt).toThrow(
      new RegExp(
        `backend "orders": option "prefix" must be 1-200 characters without whitespace, ` +
          `"\\{", "\\}" or ":" \\(they would break the storage key layout\\), got ${shownPrefix}`,
      ),
    );
  });

  it('refuses an alias that would break the hash tag', () => {
    expect(
      () =>
        new RedisBackend('a}b', { backend: RedisBackend, url: 'redis://localhost' }, storeRules),
    ).toThrow(InvalidBackendConfigError);
  });

  it('wants exactly one of url, clusterNodes and client', () => {
    expect(() => build({})).toThrow(/option "url" is missing/);
    expect(() =>
      build({ url: 'redis://localhost', options: { clusterNodes: ['127.0.0.1:7000'] } }),
    ).toThrow(/option "clusterNodes" cannot be combined with url/);
  });

  it('refuses a URL that is not redis:// or rediss://, without repeating its password', () => {
    const attempt = () => build({ url: 'http://app:hunter2@localhost:6379' });
    expect(attempt).toThrow(/option "url" must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(attempt).toThrow(/app:\*\*\*@/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('masks the password of a URL for logs and errors', () => {
    const settings = parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      url: 'rediss://app:s%40cret@cache.example:6380/2',
    });
    expect(settings.maskedTarget).toBe('rediss://app:***@cache.example:6380/2');
    expect(settings.secrets).toContain('s@cret');
  });

  it('reads cluster seeds as host:port or URLs with credentials', () => {
    const settings = parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      options: { clusterNodes: ['10.0.0.1:7000', 'rediss://app:pw@10.0.0.2:7001'] },
    });
    expect(settings.target).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      redisOptions: { username: 'app', password: 'pw', tls: {} },
    });
    expect(settings.maskedTarget).toBe('cluster 10.0.0.1:7000,10.0.0.2:7001');
    expect(() => build({ options: { clusterNodes: ['no-port-here'] } })).toThrow(
      /option "clusterNodes" has "no-port-here"/,
    );
  });

  it('reads sentinels as host:port or URLs with their own credentials, and the primary apart', () => {
    const settings = parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      options: {
        sentinel: {
          name: 'queues-primary',
          nodes: ['10.0.0.1:26379', 'redis://watch:s3nt@10.0.0.2:26380'],
          username: 'app',
          password: 'pr1mary',
        },
      },
    });
    expect(settings.target).toEqual({
      kind: 'sentinel',
      name: 'queues-primary',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
      ],
      redisOptions: {
        sentinelUsername: 'watch',
        sentinelPassword: 's3nt',
        username: 'app',
        password: 'pr1mary',
      },
    });
    expect(settings.maskedTarget).toBe(
      'sentinel master queues-primary (sentinels 10.0.0.1:26379,10.0.0.2:26380)',
    );
    expect(settings.secrets).toEqual(expect.arrayContaining(['s3nt', 'pr1mary']));
  });

  it.each([
    [{ sentinel: ['10.0.0.1:26379'] }, /option "sentinel" must be \{ name, nodes/],
    [{ sentinel: { nodes: ['10.0.0.1:26379'] } }, /option "sentinel.name" must be the primary's/],
    [{ sentinel: { name: 'm', nodes: [] } }, /option "sentinel.nodes" must list at least one/],
    [{ sentinel: { name: 'm', nodes: ['nowhere'] } }, /option "sentinel.nodes" has "nowhere"/],
    [
      { sentinel: { name: 'm', nodes: ['rediss://10.0.0.1:26379'] } },
      /option "sentinel.nodes" takes host:port or redis:\/\/ URLs; for TLS set redisOptions.sentinelTLS/,
    ],
    [{ sentinel: { name: 'm', nodes: ['a:1'], db: 2 } }, /option "sentinel" has db; its fields/],
    [
      { sentinel: { name: 'm', nodes: ['a:1'] }, clusterNodes: ['b:2'] },
      /option "sentinel" cannot be combined with clusterNodes/,
    ],
  ])('refuses a sentinel config %j, naming the option', (options, message) => {
    expect(() => build({ options })).toThrow(message);
  });

  it('reads waitForReplicas, and refuses it where WAIT cannot vouch for a write', () => {
    const url = 'redis://localhost:6379';
    expect(
      parseRedisBackendConfig('orders', {
        backend: RedisBackend,
        url,
        options: { waitForReplicas: { count: 1, timeoutMs: 1000 } },
      }).waitForReplicas,
    ).toEqual({ count: 1, timeoutMs: 1000 });
    expect(parseRedisBackendConfig('orders', { backend: RedisBackend, url }).waitForReplicas).toBe(
      null,
    );
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ waitForReplicas: 1 }, /option "waitForReplicas" must be \{ count, timeoutMs \}/],
      [
        { waitForReplicas: { count: 0, timeoutMs: 1000 } },
        /option "waitForReplicas.count" must be a whole number of at least 1, got 0/,
      ],
      [
        { waitForReplicas: { count: 1, timeoutMs: 10_000 } },
        /option "waitForReplicas.timeoutMs" must be a whole number of milliseconds from 1 to below commandTimeout \(10000\), got 10000/,
      ],
      [
        { waitForReplicas: { count: 1, timeoutMs: 500, replicas: 2 } },
        /option "waitForReplicas" has replicas; its fields are count, timeoutMs/,
      ],
    ];
    for (const [options, message] of refused)
      expect(() => build({ url, options })).toThrow(message);
    expect(() =>
      build({
        options: { clusterNodes: ['10.0.0.1:7000'], waitForReplicas: { count: 1, timeoutMs: 50 } },
      }),
    ).toThrow(/option "waitForReplicas" is not supported on a Redis Cluster/);
  });

  it('refuses a client with a keyPrefix, whose keys Lua could not derive', () => {
    const client = new Redis({ lazyConnect: true, keyPrefix: 'app:' });
    try {
      expect(() => build({ options: { client } })).toThrow(
        /option "client" must have no keyPrefix/,
      );
    } finally {
      client.disconnect();
    }
  });

  describe('redisBackendConfigFromEnv', () => {
    it('prefers REDIS_CLUSTER_NODES, then REDIS_URL, then a local Redis', () => {
      expect(
        redisBackendConfigFromEnv({
          env: { REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, 10.0.0.2:7001 ', REDIS_URL: 'redis://x' },
          queues: ['a'],
          options: { leaseTtl: 5000 },
        }),
      ).toEqual({
        backend: RedisBackend,
        queues: ['a'],
        options: { leaseTtl: 5000, clusterNodes: ['10.0.0.1:7000', '10.0.0.2:7001'] },
      });
      expect(redisBackendConfigFromEnv({ env: { REDIS_URL: 'redis://x:1/2' } }).url).toBe(
        'redis://x:1/2',
      );
      expect(redisBackendConfigFromEnv({ env: {} }).url).toBe('redis://127.0.0.1:6379');
    });

    it('logs, when the backend starts, that it uses the local Redis because no variable is set', async () => {
      const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      try {
        const fallback = new RedisBackend(
          'orders',
          redisBackendConfigFromEnv({ env: {} }),
          storeRules,
        );
        await fallback.close();
        expect(log.mock.calls.map(([message]) => message)).toEqual([
          'Threadmill backend "orders" uses Redis at redis://127.0.0.1:6379: none of REDIS_URL, ' +
            'REDIS_CLUSTER_NODES or REDIS_SENTINELS is set. Set one of them to use another Redis.',
        ]);
        log.mockClear();
        const named = redisBackendConfigFromEnv({ env: { REDIS_URL: 'redis://127.0.0.1:6379' } });
        await new RedisBackend('orders', named, storeRules).close();
        expect(log).not.toHaveBeenCalled();
      } finally {
        log.mockRestore();
      }
    });

    it('reads REDIS_SENTINELS before REDIS_URL, with the primary named by REDIS_SENTINEL_NAME', () => {
      const config = redisBackendConfigFromEnv({
        env: {
          REDIS_SENTINELS: '10.0.0.1:26379, 10.0.0.2:26379',
          REDIS_SENTINEL_NAME: 'queues',
          REDIS_SENTINEL_PRIMARY_PASSWORD: 'pw',
          REDIS_URL: 'redis://x',
        },
      });
      expect(config.url).toBeUndefined();
      expect(config.options).toEqual({
        sentinel: { name: 'queues', nodes: ['10.0.0.1:26379', '10.0.0.2:26379'], password: 'pw' },
      });
      expect(
        redisBackendConfigFromEnv({ env: { REDIS_SENTINELS: '10.0.0.1:26379' } }).options,
      ).toEqual({ sentinel: { name: 'mymaster', nodes: ['10.0.0.1:26379'] } });
    });
  });
});

describe('RedisBackend outbox option', () => {
  const parse = (outbox: unknown) =>
    parseRedisBackendConfig('orders', {
      backend: RedisBackend,
      url: 'redis://localhost:6379',
      options: { outbox },
    });

  it('is off unless given, and takes the documented defaults', () => {
    expect(parse(undefined).outbox).toBeNull();
    expect(parse({ url: 'postgres://app@localhost/app' }).outbox).toEqual({
      target: { url: 'postgres://app@localhost/app' },
      schema: 'threadmill',
      pollIntervalMs: 10_000,
      markWindowMs: 86_400_000,
      batchSize: 500,
      relay: true,
    });
  });

  it.each([
    [{}, /outbox.*needs exactly one of url .* and pool/],
    [{ url: 'postgres://a/b', pool: { connect: () => null } }, /exactly one of url/],
    [{ url: 'redis://a' }, /outbox\.url.*postgres:\/\//],
    [{ url: 'postgres://a/b', schema: 'Bad-Name' }, /outbox\.schema/],
    [{ url: 'postgres://a/b', pollInterval: 0 }, /outbox\.pollInterval/],
    [{ url: 'postgres://a/b', relay: 'yes' }, /outbox\.relay/],
    [{ url: 'postgres://a/b', polInterval: 5 }, /has polInterval; its fields are/],
  ])('refuses %j, naming the alias and the field', (outbox, message) => {
    expect(() => parse(outbox)).toThrow(InvalidBackendConfigError);
    expect(() => parse(outbox)).toThrow(message);
  });
});
