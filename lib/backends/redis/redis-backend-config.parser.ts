import { Cluster, Redis, type RedisOptions } from 'ioredis';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { Retention } from '../../lifecycle/retention';
import type { QueueLimits } from '../../core/queue-limits';
import { BackendConfigReader } from '../backend-config.reader';
import {
  REDIS_BACKEND_DEFAULTS,
  type RedisBackendOptions,
} from './redis-backend-options.interface';

/** Where the backend's connections go. */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; redisOptions: RedisOptions }
  | { kind: 'client'; client: Redis | Cluster };

/** A validated RedisBackend configuration, every default applied. */
export interface RedisBackendSettings {
  alias: string;
  /** First part of every key name (see RedisBackendOptions.prefix). */
  prefix: string;
  queues: string[];
  leaseTtl: number;
  resultTtl: number;
  /** How long and how many finished tasks are kept, by queue and status. */
  retention: Retention;
  /** The configured limits by queue, seeded into the store where it has none. */
  limits: Readonly<Record<string, QueueLimits>>;
  maintenanceInterval: number;
  batchSize: number;
  connectTimeout: number;
  commandTimeout: number;
  maxPayloadBytes: number;
  /** Whether a Redis that evicts keys is accepted (see RedisBackendOptions.allowEviction). */
  allowEviction: boolean;
  /** Whether a Redis that keeps nothing on disk is refused (see RedisBackendOptions.requirePersistence). */
  requirePersistence: boolean;
  redisOptions: RedisOptions;
  target: RedisTarget;
  /** The target for logs and errors, password replaced by `***`. */
  maskedTarget: string;
  /** Secrets to strip from any error text before it is shown. */
  secrets: string[];
}

/** The options of RedisBackend besides the ones every backend has. */
const REDIS_OWN_OPTIONS = [
  'prefix',
  'connectTimeout',
  'commandTimeout',
  'maxPayloadBytes',
  'allowEviction',
  'requirePersistence',
  'clusterNodes',
  'client',
  'redisOptions',
];
const REDIS_PROTOCOLS: ReadonlySet<string> = new Set(['redis:', 'rediss:']);

/**
 * Validates one alias's BackendConfig for RedisBackend. Every problem is an
 * InvalidBackendConfigError naming the alias and the option, raised at
 * construction so a bad config fails bootstrap, not the first enqueue.
 *
 * @internal
 */
export function parseRedisBackendConfig(
  alias: string,
  config: BackendConfig,
): RedisBackendSettings {
  const reader = new BackendConfigReader(alias, config, 'RedisBackend', REDIS_OWN_OPTIONS);
  const fail = (option: string, problem: string): never => reader.fail(option, problem);
  const options = (config.options ?? {}) as RedisBackendOptions;
  const common = reader.common();
  const prefix = reader.name('prefix', REDIS_BACKEND_DEFAULTS.prefix);
  const connectTimeout = reader.milliseconds(
    'connectTimeout',
    REDIS_BACKEND_DEFAULTS.connectTimeout,
  );
  const commandTimeout = reader.milliseconds(
    'commandTimeout',
    REDIS_BACKEND_DEFAULTS.commandTimeout,
  );
  const maxPayloadBytes = reader.wholeNumber(
    'maxPayloadBytes',
    REDIS_BACKEND_DEFAULTS.maxPayloadBytes,
    1,
  );
  const allowEviction = reader.flag('allowEviction', REDIS_BACKEND_DEFAULTS.allowEviction);
  const requirePersistence = reader.flag(
    'requirePersistence',
    REDIS_BACKEND_DEFAULTS.requirePersistence,
  );
  const redisOptions = options.redisOptions ?? {};
  if (typeof redisOptions !== 'object' || redisOptions === null) {
    fail('redisOptions', 'must be an object of ioredis options');
  }

  const sources = [
    config.url !== undefined && 'url',
    options.clusterNodes !== undefined && 'clusterNodes',
    options.client !== undefined && 'client',
  ].filter((source): source is string => typeof source === 'string');
  if (sources.length === 0) {
    fail(
      'url',
      'is missing: set url (redis:// or rediss://), options.clusterNodes or options.client',
    );
  }
  if (sources.length > 1)
    fail(sources[1], `cannot be combined with ${sources[0]}: use one of them`);

  const secrets: string[] = [];
  let target: RedisTarget;
  let maskedTarget: string;
  if (options.client !== undefined) {
    const client = options.client;
    if (!(client instanceof Redis) && !(client instanceof Cluster)) {
      fail('client', 'must be an ioredis Redis or Cluster instance');
    }
    if (client.options.keyPrefix) {
      fail('client', 'must have no keyPrefix (Threadmill lays out its own keys)');
    }
    target = { kind: 'client', client };
    maskedTarget = client instanceof Cluster ? 'a Redis Cluster client' : 'a Redis client';
  } else if (options.clusterNodes !== undefined) {
    const seeds = options.clusterNodes;
    if (!Array.isArray(seeds) || seeds.length === 0) {
      fail('clusterNodes', 'must list at least one host:port seed node');
    }
    const nodes: { host: string; port: number }[] = [];
    const nodeOptions: RedisOptions = {};
    for (const seed of seeds) {
      const url = parseUrl(
        typeof seed === 'string' && !seed.includes('://') ? `redis://${seed}` : seed,
      );
      if (url === null || !url.hostname || !url.port) {
        return fail(
          'clusterNodes',
          `has "${maskSeed(seed)}", which is not host:port or a redis:// URL`,
        );
      }
      nodes.push({ host: url.hostname, port: Number(url.port) });
      if (url.username) nodeOptions.username = decodeURIComponent(url.username);
      if (url.password) {
        nodeOptions.password = decodeURIComponent(url.password);
        secrets.push(nodeOptions.password, url.password);
      }
      if (url.protocol === 'rediss:') nodeOptions.tls = {};
    }
    target = { kind: 'cluster', nodes, redisOptions: nodeOptions };
    maskedTarget = `cluster ${nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
  } else {
    const url = parseUrl(config.url);
    if (url === null || !REDIS_PROTOCOLS.has(url.protocol)) {
      return fail('url', `must be a redis:// or rediss:// URL, got "${maskSeed(config.url)}"`);
    }
    if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
    const masked = new URL(url.href);
    if (masked.password) masked.password = '***';
    target = { kind: 'url', url: url.href };
    maskedTarget = masked.href;
  }

  return {
    alias,
    prefix,
    queues: reader.queues,
    ...common,
    connectTimeout,
    commandTimeout,
    maxPayloadBytes,
    allowEviction,
    requirePersistence,
    redisOptions,
    target,
    maskedTarget,
    secrets: secrets.filter((secret) => secret.length > 0),
  };
}

function parseUrl(text: unknown): URL | null {
  if (typeof text !== 'string') return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** Something the user wrote, safe to repeat in an error: anything after `//user:` is hidden. */
function maskSeed(text: unknown): string {
  return String(text).replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
