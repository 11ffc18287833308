import type { Logger } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';

import { UnsupportedStoreError } from '../../core/errors/unsupported-store.error';
import { evictionAllowed, evictionRefused, redisTooOld } from '../../core/threadmill.messages';
import type { RedisClient } from './redis-scripts';

/** The oldest Redis whose scripts honour a `#!lua` line's flags (see the scripts' headers). */
const MIN_MAJOR_VERSION = 7;

/** The one policy under which a full Redis refuses writes instead of deleting keys. */
const NO_EVICTION = 'noeviction';

/** The `field:value` lines of an INFO reply. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** What the check needs to know of a server. */
export interface ServerFacts {
  version: string;
  /** maxmemory_policy from INFO memory; empty when the server does not say. */
  policy: string;
}

/**
 * Why a server cannot serve an alias: null when it can. A server that evicts
 * is refused unless `allowEviction` is set (the caller then warns).
 */
export function serverProblem(
  facts: ServerFacts,
  alias: string,
  target: string,
  allowEviction: boolean,
): string | null {
  const major = Number.parseInt(facts.version, 10);
  if (!(major >= MIN_MAJOR_VERSION)) return redisTooOld(alias, target, facts.version || 'unknown');
  if (facts.policy !== NO_EVICTION && !allowEviction) {
    return evictionRefused(alias, target, facts.policy || 'unknown');
  }
  return null;
}

/**
 * Reads the version and eviction policy from INFO (not CONFIG GET, which
 * managed Redis services often forbid), of every master of a Cluster, and
 * throws UnsupportedStoreError when one cannot serve the alias. Run once per
 * connection, before its first command (see RedisConnection.run).
 */
export async function checkRedisServer(
  client: RedisClient,
  settings: { alias: string; maskedTarget: string; allowEviction: boolean },
  logger: Logger,
): Promise<void> {
  let servers: (Redis | Cluster)[] = [client];
  if (client instanceof Cluster) {
    // Waits for the cluster to connect; its masters are known after that.
    await client.info('server');
    const masters = client.nodes('master');
    if (masters.length > 0) servers = masters;
  }
  for (const server of servers) {
    const [serverInfo, memoryInfo] = await Promise.all([
      server.info('server'),
      server.info('memory'),
    ]);
    const facts: ServerFacts = {
      version: parseInfo(serverInfo).get('redis_version') ?? '',
      policy: parseInfo(memoryInfo).get('maxmemory_policy') ?? '',
    };
    const problem = serverProblem(
      facts,
      settings.alias,
      settings.maskedTarget,
      settings.allowEviction,
    );
    if (problem !== null) throw new UnsupportedStoreError(problem);
    if (facts.policy !== NO_EVICTION) {
      logger.warn(evictionAllowed(settings.alias, settings.maskedTarget, facts.policy));
    }
  }
}

/**
 * checkRedisServer for one connection: run before its first command, shared
 * by the calls that wait on it, remembered once passed (so it costs nothing
 * per call after that) and forgotten on `reset` (a reconnect may have reached
 * another server, after a failover). A failed check is not remembered: the
 * next call asks again, since the server may have been fixed meanwhile.
 */
export class RedisServerCheck {
  private done = false;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly client: RedisClient,
    private readonly settings: { alias: string; maskedTarget: string; allowEviction: boolean },
    private readonly logger: Logger,
  ) {}

  get passed(): boolean {
    return this.done;
  }

  ensure(): Promise<void> {
    this.pending ??= checkRedisServer(this.client, this.settings, this.logger).then(
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
}
