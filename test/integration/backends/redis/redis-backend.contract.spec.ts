import { Redis } from 'ioredis';

import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { describeBackendContract } from '../../../contract/backend-contract';
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

describeBackendContract('RedisBackend', async (settings) => {
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
