import { Redis } from 'ioredis';

import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import type { RedisBackendOptions } from '../../../../lib/backends/redis/redis-backend-options.interface';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import {
  readyRecord as makeReadyRecord,
  type ReadyRecordFields,
} from '../../../helpers/ready-record';
import { testAlias } from '../../../helpers/test-alias';
import { testRedisUrl } from '../../../helpers/test-redis-url';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

export const QUEUES = ['default', 'emails'];

/**
 * Redis-specific suites build backends through this: each gets its own alias
 * (its own hash tag), and `cleanup()` closes every backend and removes the
 * alias keys by SCAN + UNLINK. `admin` is a plain client for looking at keys.
 */
export class RedisFixture {
  readonly admin: Redis;
  private readonly made: { backend: RedisBackend; alias: string; prefix?: string }[] = [];
  private readonly subscribers: Redis[] = [];

  constructor(readonly url = testRedisUrl()) {
    this.admin = new Redis(url, { lazyConnect: true });
  }

  backend(options: RedisBackendOptions = {}, queues = QUEUES, alias = testAlias()): RedisBackend {
    const backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: this.url,
        queues,
        options: { ...options },
      },
      storeRules,
    );
    this.made.push({ backend, alias, prefix: options.prefix });
    return backend;
  }

  /** The key names of a backend this fixture made, under its own `prefix` option. */
  keys(backend: RedisBackend): RedisKeys {
    const made = this.made.find((entry) => entry.backend === backend);
    return new RedisKeys(backend.alias, made?.prefix);
  }

  /** Redis's clock, the one due times and leases are counted on (ms since the epoch). */
  async storeNow(): Promise<number> {
    const [seconds, micros] = await this.admin.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  /**
   * Every message published on `channel` from now on, as a subscriber of its
   * own sees it (one that sets no listener mark); closed by `cleanup()`.
   */
  async watchChannel(channel: string): Promise<string[]> {
    const messages: string[] = [];
    const subscriber = new Redis(this.url);
    this.subscribers.push(subscriber);
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(channel);
    return messages;
  }

  async cleanup(): Promise<void> {
    for (const subscriber of this.subscribers.splice(0)) subscriber.disconnect();
    for (const { backend, alias, prefix } of this.made.splice(0)) {
      await backend.close();
      await removeAliasKeys(this.admin, alias, prefix);
    }
  }

  async close(): Promise<void> {
    await this.cleanup();
    await this.admin.quit();
  }
}

/** A READY record as the task layer hands it to enqueue. */
export const readyRecord = (alias: string, fields: ReadyRecordFields = {}): TaskRecord =>
  makeReadyRecord(alias, { name: 'redis.spec', ...fields });

/** The record a worker would acknowledge after a successful run. */
export function succeeded(record: TaskRecord, returnValue: unknown = null): TaskRecord {
  return { ...record, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue };
}

/** Calls per command name from INFO commandstats (e.g. { evalsha: 3, blpop: 1 }). */
export async function commandStats(client: Redis): Promise<Record<string, number>> {
  const info = await client.info('commandstats');
  const stats: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    stats[match[1]] = Number(match[2]);
  }
  return stats;
}

/** Commands per name that ran between two commandstats snapshots (zeros left out). */
export function statsDelta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after)) {
    const diff = calls - (before[name] ?? 0);
    if (diff > 0) delta[name] = diff;
  }
  return delta;
}
