import type { BackendConfig } from '../../core/backend-config.interface';
import type { QueueConfig } from '../../core/queue-limits';
import type { RedisBackendOptions } from './redis-backend-options.interface';
import { RedisBackend } from './redis.backend';

/** Used when neither REDIS_CLUSTER_NODES nor REDIS_URL is set: a Redis on this machine. */
const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A RedisBackend config from the environment, so one build runs on a single
 * Redis or on a Redis Cluster: `REDIS_CLUSTER_NODES` (comma-separated
 * `host:port` or `redis://user:password@host:port` seeds) wins, else
 * `REDIS_URL`, else `redis://127.0.0.1:6379`.
 *
 * @param settings queues, further RedisBackendOptions, and the environment to read (default `process.env`).
 * @example
 * ```ts
 * ThreadmillModule.forRoot({
 *   backends: { default: redisBackendConfigFromEnv({ queues: ['default', 'emails'] }) },
 * });
 * ```
 * @publicApi
 */
export function redisBackendConfigFromEnv(
  settings: {
    queues?: (string | QueueConfig)[];
    options?: Omit<RedisBackendOptions, 'clusterNodes' | 'client'>;
    env?: Record<string, string | undefined>;
  } = {},
): BackendConfig {
  const env = settings.env ?? process.env;
  const options: Record<string, unknown> = { ...settings.options };
  const seeds = (env.REDIS_CLUSTER_NODES ?? '')
    .split(',')
    .map((seed) => seed.trim())
    .filter((seed) => seed.length > 0);
  const config: BackendConfig = { backend: RedisBackend, queues: settings.queues, options };
  if (seeds.length > 0) options.clusterNodes = seeds;
  else config.url = env.REDIS_URL || LOCAL_REDIS_URL;
  return config;
}
