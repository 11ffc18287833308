import type { RedisServerHandle } from '../helpers/redis-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __threadmillRedis?: RedisServerHandle }).__threadmillRedis;
  await server?.stop();
}
