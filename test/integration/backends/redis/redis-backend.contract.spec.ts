import { Redis } from 'ioredis';

import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { describeBackendContract } from '../../../../lib/backend-kit';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// One plain client for cleanup only; every backend opens its own connections.
let admin: Redis;

beforeAll(() => {
  admin = new Redis(testRedisUrl(), { lazyConnect: true });
});

afterAll(async () => {
  await admin.quit();
});

// Jest's own functions, passed as any other runner's would be.
const runner = { describe, it, expect, beforeEach, afterEach };

describeBackendContract(runner, 'RedisBackend', async (settings) => {
  const { alias, queues, ...options } = settings;
  const open = () =>
    new RedisBackend(
      alias,
      { backend: RedisBackend, url: testRedisUrl(), queues, options },
      storeRules,
    );
  const backend = open();
  return {
    backend,
    reopen: async () => open(),
    cleanup: async () => {
      await removeAliasKeys(admin, alias);
    },
  };
});
