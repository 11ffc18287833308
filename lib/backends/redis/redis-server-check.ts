import type { Logger } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';

import { UnsupportedStoreError } from '../../core/errors/unsupported-store.error';
import type { StoreCondition, StorePersistence } from '../../core/store-condition';
import {
  redisKeepsNothing,
  redisPersistenceRequired,
  redisSnapshotsOnly,
} from '../../core/store.messages';
import { evictionAllowed, evictionRefused, redisTooOld } from '../../core/threadmill.messages';
import { parseInfo } from './redis-info';
import { readPersistence, weakestPersistence, type PersistenceFacts } from './redis-persistence';
import type { RedisClient } from './redis-clients';
import { RedisStoreMark } from './redis-store-mark';

/** The oldest Redis whose scripts honour a `#!lua` line's flags (see the scripts' headers). */
const MIN_MAJOR_VERSION = 7;

/** The one policy under which a full Redis refuses writes instead of deleting keys. */
const NO_EVICTION = 'noeviction';

/** What the check needs to know of a server. */
export interface ServerFacts {
  version: string;
  /** maxmemory_policy from INFO memory; empty when the server does not say. */
  policy: string;
  /** How it keeps its data over a restart; absent when not read. */
  persistence?: StorePersistence;
}

/** The settings of an alias the check holds a server to. */
export interface ServerCheckSettings {
  alias: string;
  maskedTarget: string;
  allowEviction: boolean;
  requirePersistence: boolean;
  /** The alias's store mark (RedisKeys.storeMark). */
  storeMarkKey: string;
}

/**
 * Why a server cannot serve an alias: null when it can. A server that evicts
 * is refused unless `allowEviction` is set (the caller then warns); one that
 * keeps nothing on disk, when `requirePersistence` is set.
 */
export function serverProblem(
  facts: ServerFacts,
  alias: string,
  target: string,
  allowEviction: boolean,
  requirePersistence = false,
): string | null {
  const major = Number.parseInt(facts.version, 10);
  if (!(major >= MIN_MAJOR_VERSION)) return redisTooOld(alias, target, facts.version || 'unknown');
  if (facts.policy !== NO_EVICTION && !allowEviction) {
    return evictionRefused(alias, target, facts.policy || 'unknown');
  }
  if (requirePersistence && facts.persistence === 'none') {
    return redisPersistenceRequired(alias, target);
  }
  return null;
}

/**
 * Reads the version, eviction policy and persistence from INFO (not CONFIG,
 * which managed Redis services often forbid; `CONFIG GET save` only adds the
 * snapshot schedule where it is allowed), of every master of a Cluster, and
 * throws UnsupportedStoreError when one cannot serve the alias. Returns the
 * persistence of the least safe master. Run once per connection, before its
 * first command (see RedisConnection.run).
 */
export async function checkRedisServer(
  client: RedisClient,
  settings: ServerCheckSettings,
  logger: Logger,
): Promise<PersistenceFacts | null> {
  let servers: (Redis | Cluster)[] = [client];
  if (client instanceof Cluster) {
    // Waits for the cluster to connect; its masters are known after that.
    await client.info('server');
    const masters = client.nodes('master');
    if (masters.length > 0) servers = masters;
  }
  const persistence: PersistenceFacts[] = [];
  for (const server of servers) {
    const [serverInfo, memoryInfo, kept] = await Promise.all([
      server.info('server'),
      server.info('memory'),
      readPersistence(server),
    ]);
    const facts: ServerFacts = {
      version: parseInfo(serverInfo).get('redis_version') ?? '',
      policy: parseInfo(memoryInfo).get('maxmemory_policy') ?? '',
      persistence: kept.persistence,
    };
    const { alias, maskedTarget, allowEviction, requirePersistence } = settings;
    const problem = serverProblem(facts, alias, maskedTarget, allowEviction, requirePersistence);
    if (problem !== null) throw new UnsupportedStoreError(problem);
    if (facts.policy !== NO_EVICTION) {
      logger.warn(evictionAllowed(alias, maskedTarget, facts.policy));
    }
    persistence.push(kept);
  }
  return weakestPersistence(persistence);
}

/**
 * checkRedisServer for one connection: run before its first command, shared
 * by the calls that wait on it, remembered once passed (so it costs nothing
 * per call after that) and forgotten on `reset` (a reconnect may have reached
 * another server, after a failover, or a restarted one). A failed check is
 * not remembered: the next call asks again, since the server may have been
 * fixed meanwhile. Each pass also reads the store's mark (RedisStoreMark),
 * and says how the server keeps its data when that differs from what it
 * said last: a warning for snapshots only, a louder one for nothing on disk.
 */
export class RedisServerCheck {
  private done = false;
  private pending: Promise<void> | null = null;
  private readonly mark: RedisStoreMark;
  /** What the last passed check found; null before the first. */
  private persistence: PersistenceFacts | null = null;

  constructor(
    private readonly client: RedisClient,
    private readonly settings: ServerCheckSettings,
    private readonly logger: Logger,
  ) {
    this.mark = new RedisStoreMark(settings.storeMarkKey, settings, logger);
  }

  get passed(): boolean {
    return this.done;
  }

  /** What the checks found so far, for the health checks. */
  get condition(): StoreCondition {
    return { persistence: this.persistence?.persistence ?? null, dataLost: this.mark.lost };
  }

  ensure(): Promise<void> {
    this.pending ??= this.check().then(
      () => {
        this.done = true;
        this.pending = null;
      },
      (error: unknown) => {
        this.pending = null;
        throw error;
      },
    );
    return this.pending;
  }

  reset(): void {
    this.done = false;
  }

  private async check(): Promise<void> {
    const found = await checkRedisServer(this.client, this.settings, this.logger);
    await this.mark.check(this.client);
    const before = this.persistence;
    this.persistence = found;
    if (found === null) return;
    if (before?.persistence === found.persistence && before.schedule === found.schedule) return;
    const { alias, maskedTarget } = this.settings;
    if (found.persistence === 'none') this.logger.warn(redisKeepsNothing(alias, maskedTarget));
    if (found.persistence === 'snapshots') {
      this.logger.warn(redisSnapshotsOnly(alias, maskedTarget, found.schedule));
    }
  }
}
