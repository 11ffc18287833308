import type { BackendConfig } from '../../core/backend-config.interface';
import type { QueueConfig } from '../../core/queue-limits';
import type { RedisBackendOptions } from './redis-backend-options.interface';
import { LOCAL_REDIS_FALLBACK } from './redis-local-fallback';
import { RedisBackend } from './redis.backend';

/** Used when neither REDIS_CLUSTER_NODES, REDIS_SENTINELS nor REDIS_URL is set: a Redis on this machine. */
const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';
/** The name `sentinel.conf` examples give the primary, when REDIS_SENTINEL_NAME is not set. */
const DEFAULT_SENTINEL_NAME = 'mymaster';

/**
 * A RedisBackend config from the environment, so one build runs on a single
 * Redis, on a Redis Cluster or behind Redis Sentinel: `REDIS_CLUSTER_NODES`
 * (comma-separated `host:port` or `redis://user:password@host:port` seeds)
 * wins, else `REDIS_SENTINELS` (comma-separated sentinels, the same way;
 * the primary named by `REDIS_SENTINEL_NAME`, default `mymaster`, its
 * password `REDIS_SENTINEL_PRIMARY_PASSWORD` if it needs one), else
 * `REDIS_URL`, else `redis://127.0.0.1:6379` (which the backend logs when it
 * starts, naming the variables it looked for).
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
    options?: Omit<RedisBackendOptions, 'clusterNodes' | 'sentinel' | 'client'>;
    env?: Record<string, string | undefined>;
  } = {},
): BackendConfig {
  const env = settings.env ?? process.env;
  const options: Record<string, unknown> = { ...settings.options };
  const seeds = listed(env.REDIS_CLUSTER_NODES);
  const sentinels = listed(env.REDIS_SENTINELS);
  const config: BackendConfig = { backend: RedisBackend, queues: settings.queues, options };
  if (seeds.length > 0) options.clusterNodes = seeds;
  else if (sentinels.length > 0) {
    const password = env.REDIS_SENTINEL_PRIMARY_PASSWORD;
    options.sentinel = {
      name: env.REDIS_SENTINEL_NAME || DEFAULT_SENTINEL_NAME,
      nodes: sentinels,
      ...(password ? { password } : {}),
    };
  } else if (env.REDIS_URL) config.url = env.REDIS_URL;
  else return { ...config, url: LOCAL_REDIS_URL, [LOCAL_REDIS_FALLBACK]: true } as BackendConfig;
  return config;
}

/** A comma-separated list, trimmed, without empty entries. */
function listed(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}
