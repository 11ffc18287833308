import { startRedisServer } from '../helpers/redis-server';

/**
 * One Redis for the whole run: REDIS_URL when the caller set one, otherwise a
 * private redis-server on a free loopback port (stopped in global-teardown).
 * Tests never flush it: each isolates itself by alias.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  (globalThis as { __threadmillRedis?: typeof server }).__threadmillRedis = server;
}
