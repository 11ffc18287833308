import type { Cluster, Redis, RedisOptions } from 'ioredis';

import { DEFAULT_MAX_PAYLOAD_BYTES, THREADMILL_NAMESPACE } from '../../core/threadmill.constants';
import type { BackendOptions } from '../backend-options.interface';
import type { RedisOutboxOptions } from '../outbox/outbox-options.interface';

/**
 * Options of a `RedisBackend` alias (`options` in its BackendConfig). Every
 * time is in milliseconds and a whole number.
 *
 * Connect with `url` in the BackendConfig (`redis://[user:password@]host:port[/db]`,
 * or `rediss://` for TLS), with `clusterNodes` (seed nodes of a Redis Cluster),
 * with `sentinel` (the primary Redis Sentinel names), or hand over a client
 * you already have with `client` (an ioredis `Redis` or `Cluster`; the
 * backend then never closes it, only the extra blocking connections it opens
 * for idle waits).
 *
 * @example
 * ```ts
 * const orders: BackendConfig = {
 *   backend: RedisBackend,
 *   options: { clusterNodes: ['10.0.0.1:7000', '10.0.0.2:7000'], leaseTtl: 10 * 60_000 },
 * };
 * ```
 * @publicApi
 */
export interface RedisBackendOptions extends BackendOptions {
  /** Longest one connection attempt may take; commands fail with BackendUnavailableError after it. Default 5 s. */
  connectTimeout?: number;
  /** Longest a (non-blocking) command may wait for its reply. Default 10 s. */
  commandTimeout?: number;
  /**
   * Seed nodes of a Redis Cluster, as `host:port` or `redis://[user:password@]host:port`
   * (`rediss://` for TLS). Use instead of `url`.
   */
  clusterNodes?: string[];
  /**
   * First part of every key name: the alias's keys are `<prefix>:{alias}:...`.
   * Give each application sharing one Redis its own prefix (or its own
   * aliases) so that neither reads, recovers or removes the other's tasks
   * and schedules. A name like an alias (1-200 characters without
   * whitespace, `{`, `}` or `:`). Changing it leaves what was stored under
   * the former prefix where it is, unread. Default `threadmill`, the layout
   * of every earlier release.
   */
  prefix?: string;
  /**
   * The primary a set of Redis Sentinels monitor, instead of `url`: asked of
   * the sentinels at each (re)connect, so a failover moves every connection
   * to the promoted replica.
   */
  sentinel?: RedisSentinelOptions;
  /** An ioredis client or cluster to use instead of connecting; it must have no `keyPrefix`. */
  client?: Redis | Cluster;
  /**
   * Wait for replicas before answering (off by default): after each write
   * that stores or hands over a task (an enqueue, a lease, an outcome, a
   * retry) the backend sends `WAIT count timeoutMs` on the same connection.
   * When fewer than `count` replicas confirm it in time, an enqueue fails
   * with EnqueueOutcomeUnknownError (its task may be lost in a failover), and
   * a lease or an outcome with ReplicasBehindError, which a worker takes as
   * a refused store: it keeps the outcome and sends it again. Not on a Redis
   * Cluster. `timeoutMs` must be below `commandTimeout`.
   */
  waitForReplicas?: { count: number; timeoutMs: number };
  /** Further ioredis options for the connections the backend opens (TLS certificates, ...). */
  redisOptions?: RedisOptions;
  /**
   * Largest serialized `args` (bytes of JSON) enqueue accepts; more is an InvalidTaskError.
   * Stored task data far above it is failed as corrupt instead of parsed. Default 1 MiB.
   */
  maxPayloadBytes?: number;
  /**
   * UNSAFE: use a Redis whose `maxmemory-policy` evicts keys. By default the
   * backend refuses one when it first connects (UnsupportedStoreError): when
   * its memory is full, such a Redis deletes keys of its choosing, so waiting
   * tasks, running ones and stored results vanish without an error or a
   * trace. With `noeviction` a full Redis refuses writes instead, and
   * Threadmill reports that (StoreFullError) and loses nothing. Set this only
   * for a Redis that never reaches its `maxmemory`; a warning is logged at
   * connect. Default false.
   */
  allowEviction?: boolean;
  /**
   * Refuse a Redis that keeps nothing on disk (neither AOF nor RDB
   * snapshots), when the backend first connects (UnsupportedStoreError): a
   * restart of such a Redis loses every task without a trace. Without it,
   * such a Redis is used with a warning at connect and health reports it
   * degraded. Read from INFO persistence and, when AOF is off, `CONFIG GET
   * save`; a Redis that refuses CONFIG with AOF off is taken to snapshot,
   * and passes. Default false.
   */
  requirePersistence?: boolean;
  /**
   * The app's Postgres, where an enqueue with a `transaction` override
   * writes its tasks inside the app's transaction; a relay moves each
   * committed one into Redis once, under the id the enqueue answered with.
   * Off by default: such an enqueue is refused (TransactionNotSupportedError).
   */
  outbox?: RedisOutboxOptions;
}

/**
 * Where a set of Redis Sentinels is, and which primary of theirs to use.
 *
 * @publicApi
 */
export interface RedisSentinelOptions {
  /** The primary's name in the sentinels' configuration (`sentinel monitor <name> ...`). */
  name: string;
  /**
   * The sentinels, as `host:port` or `redis://[user:password@]host:port` (the
   * credentials are the sentinels' own). One that answers is enough; list a few.
   */
  nodes: string[];
  /** The ACL user of the primary and its replicas, when they need one. */
  username?: string;
  /** The password of the primary and its replicas, when they need one. */
  password?: string;
}

/**
 * The defaults of RedisBackend's own options (the common ones are every
 * backend's: COMMON_BACKEND_DEFAULTS): 5 s to connect, 10 s per command and
 * 1 MiB of serialized args; a Redis that evicts keys is refused, one that
 * keeps nothing on disk is used with a warning; keys start with `threadmill:`.
 */
export const REDIS_BACKEND_DEFAULTS = {
  prefix: THREADMILL_NAMESPACE,
  connectTimeout: 5000,
  commandTimeout: 10_000,
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  allowEviction: false,
  requirePersistence: false,
} as const;
