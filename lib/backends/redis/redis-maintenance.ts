import type { Logger } from '@nestjs/common';

import { delayUntil } from '../run-after';
import type { TaskRecord } from '../../core/task-record.interface';
import { finishedSegment } from '../../core/queue-segment';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type {
  EndAttempt,
  MaintenanceLimits,
  MaintenanceStore,
} from '../../core/ports/maintenance-store.port';
import { partOutcomes } from '../../core/retry-policy';
import type { ResolvedLimit } from '../../core/retention';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import type { RedisConnection } from './redis-connection';
import { RedisControlScripts } from './redis-control-scripts';
import type { RedisKeys } from './redis-keys';
import { groupFinished } from './redis-finished-groups';
import { readLiveRecords, type LiveEntry } from './redis-live-records';
import { RedisRecordCodec } from './redis-record.codec';
import {
  ANY_POOL,
  storeSettings,
  type HolderGuard,
  type RetryItem,
  StoreReply,
} from './redis-script-types';
import { type RedisScripts, WAKE_BOUND } from './redis-scripts';

/** Most ids one script call moves or reaps: Lua's unpack() has a stack limit near 8000. */
export const MAX_PER_CALL = 1000;

/**
 * What a RedisBackend alias stores for the maintenance pass (the lifecycle's
 * runMaintenancePass decides; this applies): due deferred tasks promoted,
 * the attempts of tasks whose lease ran out or whose pool lapsed ended as
 * decided, guarded by the lease they were decided for (a deadline, or the
 * pool), finished tasks trimmed to their retention, and the pass's heartbeat written.
 * Every time compared is Redis's (lease and heartbeat deadlines, due times
 * and history scores are written by the scripts with Redis's clock), so a
 * pool on a host whose clock is off recovers nothing early and nothing late.
 */
export class RedisMaintenance implements MaintenanceStore {
  /** Where the next forgetFreeKeys goes on in the unique key index ('0': from the start). */
  private uniqueKeysCursor = '0';
  private readonly control: RedisControlScripts;

  constructor(
    private readonly settings: RedisBackendSettings,
    private readonly keys: RedisKeys,
    private readonly scripts: RedisScripts,
    private readonly connection: RedisConnection,
    private readonly codec: RedisRecordCodec,
    private readonly logger: Logger,
  ) {
    this.control = new RedisControlScripts(connection.client);
  }

  get limits(): MaintenanceLimits {
    return this.settings;
  }

  /** Redis's time (ms since epoch): the clock of every deadline and score the scripts write. */
  async storeNow(): Promise<number> {
    return (await this.scripts.storeTime(this.keys.maintenanceHeartbeat)).nowMs;
  }

  /** Due deferred tasks (by Redis's clock) into their ready queues, at most `max` in all. */
  promoteDue(max: number): Promise<number> {
    return this.connection.run(() => this.promote(max));
  }

  private async promote(max: number): Promise<number> {
    let remaining = max;
    let promoted = 0;
    for (const queue of this.settings.queues) {
      while (remaining > 0) {
        const moved = await this.scripts.promoteDeferred(
          {
            deferredKey: this.keys.deferred(queue),
            queueKey: this.keys.queue(queue),
            wakeKey: this.keys.wake(queue),
          },
          {
            max: Math.min(remaining, MAX_PER_CALL),
            taskPrefix: this.keys.taskPrefix,
            wakeBound: WAKE_BOUND,
          },
        );
        promoted += moved;
        remaining -= moved;
        if (moved < MAX_PER_CALL) break;
      }
    }
    return promoted;
  }

  endExpiredLeases(max: number, end: EndAttempt): Promise<number> {
    return this.connection.run(async () => {
      const now = await this.storeNow();
      const { client } = this.connection;
      let remaining = max;
      let ended = 0;
      for (const queue of this.settings.queues) {
        if (remaining <= 0) break;
        const ids = await client.zrangebyscore(
          this.keys.running(queue),
          '-inf',
          now,
          'LIMIT',
          0,
          Math.min(remaining, MAX_PER_CALL),
        );
        if (ids.length === 0) continue;
        remaining -= ids.length;
        const decided = (await this.readLive(ids)).map(({ id, record }) =>
          end({ id, queue, record }),
        );
        // Guarded by the deadline read: a task acknowledged or leased again meanwhile is left alone.
        ended += await this.apply(queue, decided, { latestDeadlineMs: now });
      }
      return ended;
    });
  }

  lapsedPools(max: number, ownPoolId: string | undefined): Promise<string[]> {
    return this.connection.run(async () => {
      const now = await this.storeNow();
      const lapsed = await this.connection.client.zrangebyscore(
        this.keys.pools,
        '-inf',
        now,
        'LIMIT',
        0,
        max,
      );
      return lapsed.filter((poolId) => poolId !== ownPoolId);
    });
  }

  /**
   * The tasks in the pool's own task set (never a scan of every running
   * task), ended as decided, guarded by that pool id; then the pool is
   * forgotten once it holds nothing.
   */
  endPoolAttempts(
    poolId: string,
    max: number,
    end: EndAttempt,
  ): Promise<{ ended: number; forgotten: boolean }> {
    return this.connection.run(async () => {
      const { client } = this.connection;
      const poolTasksKey = this.keys.poolTasks(poolId);
      const ids = await client.srandmember(poolTasksKey, Math.min(max, MAX_PER_CALL));
      const entries = await this.readLive(ids);
      let ended = 0;
      for (const queue of this.settings.queues) {
        const mine = entries.filter((entry) => entry.record?.task.queue === queue);
        if (mine.length === 0) continue;
        const decided = mine.map(({ id, record }) => end({ id, queue, record }));
        ended += await this.apply(queue, decided, { poolId });
      }
      // Unreadable or vanished ids belong to no queue: they only leave the pool's set
      // (an unreadable one still in a running set is the reaper's).
      const orphans = entries.filter((entry) => entry.record === null).map((entry) => entry.id);
      if (orphans.length > 0) await client.srem(poolTasksKey, ...orphans);
      return { ended, forgotten: await this.forgetPool(poolId, false) };
    });
  }

  trimFinished(queue: string, status: TaskResultStatus, limit: ResolvedLimit): Promise<number> {
    const segment = finishedSegment(status);
    return this.connection.run(() =>
      this.scripts.trimFinished(this.keys.history(queue, segment), {
        taskPrefix: this.keys.taskPrefix,
        maxAgeMs: limit.maxAgeMs,
        maxCount: limit.maxCount,
        max: Math.min(this.settings.batchSize * 10, MAX_PER_CALL),
      }),
    );
  }

  /** Ingress counts expire by themselves (each hour's hash, after resultTtl): nothing to trim. */
  async trimCounts(): Promise<number> {
    return 0;
  }

  /**
   * One HSCAN page of the unique key index: the keys whose task is final or
   * gone forgotten. The cursor is this process's: each pool walks the index
   * on its own, and a cursor is only a place to go on from.
   */
  async forgetFreeKeys(max: number): Promise<number> {
    const { forgotten, cursor } = await this.connection.run(() =>
      this.scripts.unique.forgetFreeKeys(this.keys.uniqueKeys, {
        taskPrefix: this.keys.taskPrefix,
        cursor: this.uniqueKeysCursor,
        count: Math.min(max, MAX_PER_CALL),
      }),
    );
    this.uniqueKeysCursor = cursor;
    return forgotten;
  }

  markPass(): Promise<void> {
    return this.connection.run(async () => this.heartbeat(await this.storeNow()));
  }

  /** Forgets a pool that holds nothing (see forgetPool-4.lua); `stopping` lapses it first. */
  async forgetPool(poolId: string, stopping: boolean): Promise<boolean> {
    return this.scripts.forgetPool(
      {
        poolsKey: this.keys.pools,
        poolTasksKey: this.keys.poolTasks(poolId),
        cancelsKey: this.keys.cancels(poolId),
        poolInfoKey: this.keys.poolInfo,
      },
      { poolId, stopping },
    );
  }

  /**
   * Sends READY records (built by nextAttempt) back for another attempt; per
   * record what happened. `runAfter` is on the clock that decided the retry,
   * whose time is `now`: each goes as the wait left on that clock, which the
   * script adds to Redis's, so a worker whose clock is off still waits
   * exactly its backoff.
   */
  async retry(
    records: readonly TaskRecord[],
    now: number,
    guard: HolderGuard = {},
  ): Promise<StoreReply[]> {
    const items = records.map((record): RetryItem => {
      const queue = record.task.queue;
      const delayMs = delayUntil(record.task.runAfter, now);
      return {
        runningKey: this.keys.running(queue),
        taskKey: this.keys.task(record.id),
        deferredKey: this.keys.deferred(queue),
        queueKey: this.keys.queue(queue),
        wakeKey: this.keys.wake(queue),
        id: record.id,
        data: this.codec.encodeLive(record),
        workersJson: JSON.stringify(record.workerIds),
        delayMs,
        fallbackScore: RedisRecordCodec.fallbackScore(record),
      };
    });
    return this.scripts.retry(
      items,
      {
        readyStatus: TaskResultStatus.READY,
        poolTasksPrefix: this.keys.poolTasksPrefix,
        wakeBound: WAKE_BOUND,
      },
      guard,
    );
  }

  private readLive(ids: readonly string[]): Promise<LiveEntry[]> {
    return readLiveRecords(this.connection.client, this.keys, this.codec, this.logger, ids);
  }

  /**
   * Stores ended attempts as decided: the final ones FAILED (acknowledge),
   * the others back for their next attempt (retry), each only while `guard`
   * holds. Returns how many were still held.
   */
  private async apply(
    queue: string,
    decided: readonly TaskRecord[],
    guard: HolderGuard,
  ): Promise<number> {
    const { final, retries } = partOutcomes(decided);
    const { groups } = groupFinished(final, this.keys, this.codec, () => queue);
    const [stored, sent] = await Promise.all([
      final.length > 0
        ? this.scripts.acknowledge(
            groups,
            // The reaper and recovery act for whichever pool held each task.
            storeSettings(this.keys, this.settings.retention.longestMaxAgeMs, ANY_POOL),
            guard,
          )
        : [],
      // The decisions were made on this process's clock: their waits are counted from it.
      retries.length > 0 ? this.retry(retries, Date.now(), guard) : [],
    ]);
    return [...stored, ...sent].filter((reply) => reply === StoreReply.Stored).length;
  }

  private async heartbeat(now: number): Promise<void> {
    // Outlives many missed passes, so stalled maintenance shows as stale, not as never started.
    const ttl = Math.max(this.settings.resultTtl, 100 * this.settings.maintenanceInterval);
    await this.control.markPass(this.keys.maintenanceHeartbeat, now, ttl);
  }
}
