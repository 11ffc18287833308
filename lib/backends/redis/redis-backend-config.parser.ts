import { Cluster, type RedisOptions } from 'ioredis';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { Retention } from '../../core/retention';
import type { QueueLimits } from '../../core/queue-limits';
import { BackendConfigReader, shownValue } from '../backend-config.reader';
import {
  REDIS_BACKEND_DEFAULTS,
  type RedisBackendOptions,
} from './redis-backend-options.interface';
import { parseOutboxOptions, type OutboxSettings } from '../outbox/outbox-settings';
import { parseRedisTarget, type RedisTarget } from './redis-target.parser';

/** How many replicas must confirm a task write, and how long to wait for them. */
export interface ReplicaWaitSettings {
  count: number;
  timeoutMs: number;
}

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
  /** WAIT after each task write (see RedisBackendOptions.waitForReplicas); null when off. */
  waitForReplicas: ReplicaWaitSettings | null;
  /** The app's Postgres outbox (see RedisBackendOptions.outbox); null when off. */
  outbox: OutboxSettings | null;
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
  'sentinel',
  'client',
  'waitForReplicas',
  'redisOptions',
  'outbox',
];

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

  const { target, maskedTarget, secrets } = parseRedisTarget(config, fail);
  const waitForReplicas = readWaitForReplicas(
    options.waitForReplicas,
    target,
    commandTimeout,
    fail,
  );

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
    waitForReplicas,
    outbox: parseOutboxOptions(options.outbox, fail),
  };
}

/**
 * `waitForReplicas`, checked: a whole `count` of at least 1 and a
 * `timeoutMs` below the command timeout (a WAIT cut by the command timeout
 * would leave every write's outcome unknown). Not on a Cluster, whose client
 * would send WAIT to any node rather than down the connection that wrote.
 */
function readWaitForReplicas(
  given: unknown,
  target: RedisTarget,
  commandTimeout: number,
  fail: (option: string, problem: string) => never,
): ReplicaWaitSettings | null {
  if (given === undefined) return null;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return fail('waitForReplicas', 'must be { count, timeoutMs }');
  }
  const { count, timeoutMs, ...rest } = given as Record<string, unknown>;
  if (Object.keys(rest).length > 0) {
    fail('waitForReplicas', `has ${Object.keys(rest).join(', ')}; its fields are count, timeoutMs`);
  }
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
    fail('waitForReplicas.count', `must be a whole number of at least 1, got ${shownValue(count)}`);
  }
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isSafeInteger(timeoutMs) ||
    timeoutMs < 1 ||
    timeoutMs >= commandTimeout
  ) {
    fail(
      'waitForReplicas.timeoutMs',
      `must be a whole number of milliseconds from 1 to below commandTimeout (${commandTimeout}), ` +
        `got ${shownValue(timeoutMs)}`,
    );
  }
  const cluster =
    target.kind === 'cluster' || (target.kind === 'client' && target.client instanceof Cluster);
  if (cluster) fail('waitForReplicas', 'is not supported on a Redis Cluster');
  return { count: count, timeoutMs: timeoutMs };
}
