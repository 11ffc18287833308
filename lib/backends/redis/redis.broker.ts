import type { Logger } from '@nestjs/common';

import { runBrokerSteps } from '../../core/broker-pass';
import { AcknowledgementTimeout } from '../../core/errors/acknowledgement-timeout.error';
import { WorkerLost } from '../../core/errors/worker-lost.error';
import { isRetry, nextAttempt } from '../../core/retry-policy';
import { delayUntil } from '../../core/run-after';
import type { BrokerPassReport } from '../../core/task-backend.interface';
import type { TaskErrorRecord, TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { errorToRecord } from '../../core/task-serializer';
import { acknowledgementTimeout, workerLost } from '../../core/threadmill.messages';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import { readLiveRecords, type LiveEntry } from './redis-live-records';
import { RedisRecordCodec } from './redis-record.codec';
import {
  ANY_POOL,
  WAKE_BOUND,
  type AcknowledgeGroup,
  storeSettings,
  type HolderGuard,
  type RedisScripts,
  type RetryItem,
  StoreReply,
} from './redis-scripts';

/** Most ids one script call moves or reaps: Lua's unpack() has a stack limit near 8000. */
export const MAX_PER_CALL = 1000;

/**
 * One maintenance pass of a RedisBackend alias, run every brokerInterval by
 * the worker pool's main process: the mover promotes due deferred tasks, the
 * reaper retries or fails tasks whose lease ended (AcknowledgementTimeout),
 * the tasks of pools whose heartbeat lapsed are retried or failed
 * (WorkerLost), history and ingress are trimmed to resultTtl, and a heartbeat
 * is written for health checks. Each step is isolated: a failure is logged and reported, and the
 * other steps still run. Every time a step compares is Redis's (lease and
 * heartbeat deadlines, due times and history scores are written by the
 * scripts with Redis's clock): the pass reads it once, so a pool on a host
 * whose clock is off recovers nothing early and nothing late.
 *
 * @internal
 */
export class RedisBroker {
  constructor(
    private readonly settings: RedisBackendSettings,
    private readonly keys: RedisKeys,
    private readonly scripts: RedisScripts,
    private readonly connection: RedisConnection,
    private readonly codec: RedisRecordCodec,
    private readonly logger: Logger,
  ) {}

  /** @param ownPoolId the pool running this pass: alive, so never recovered by it. */
  async pass(ownPoolId?: string): Promise<BrokerPassReport> {
    const { connection } = this;
    // Read when the first step needs it; a failed read fails each step that needs it, as a step.
    let clock: Promise<number> | undefined;
    const now = (): Promise<number> => (clock ??= this.storeNow());
    return runBrokerSteps({
      promote: () => connection.run(() => this.promote()),
      reap: () => connection.run(async () => this.reap(await now())),
      recover: () => connection.run(async () => this.recover(await now(), ownPoolId)),
      trim: () => connection.run(async () => this.trim(await now())),
      heartbeat: () => connection.run(async () => this.heartbeat(await now())),
    });
  }

  /** Redis's time (ms since epoch): the clock of every deadline and score the scripts write. */
  async storeNow(): Promise<number> {
    return (await this.scripts.storeTime(this.keys.brokerHeartbeat)).nowMs;
  }

  /** The mover: due deferred tasks (by Redis's clock) into their ready queues, at most batchSize in all. */
  private async promote(): Promise<number> {
    let remaining = this.settings.batchSize;
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

  /**
   * The reaper: reads tasks whose lease ended, decides each one's next step
   * here (the retry policy and the error text are ours, not Lua's) and stores
   * it with the deadline it read, so a task acknowledged or leased again
   * meanwhile is left alone.
   */
  private async reap(now: number): Promise<number> {
    const { client } = this.connection;
    let remaining = this.settings.batchSize;
    let reaped = 0;
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
      const count = await this.settle(
        queue,
        await this.readLive(ids),
        (id) => {
          const message = acknowledgementTimeout(id, this.settings.leaseTtl);
          return {
            className: AcknowledgementTimeout.name,
            traceback: `${AcknowledgementTimeout.name}: ${message}`,
          };
        },
        now,
        { latestDeadlineMs: now },
      );
      reaped += count;
      if (count > 0)
        this.logger.warn(`reaped ${count} task(s) of queue "${queue}" whose lease ended`);
    }
    return reaped;
  }

  /**
   * Pool recovery: for each pool whose heartbeat deadline passed, the tasks in
   * its own task set (never a scan of every running task) are retried or
   * failed with WorkerLost, guarded by that pool id; once it holds nothing it
   * is forgotten. At most batchSize tasks per pass.
   */
  private async recover(now: number, ownPoolId: string | undefined): Promise<number> {
    const { client } = this.connection;
    const lapsed = await client.zrangebyscore(
      this.keys.pools,
      '-inf',
      now,
      'LIMIT',
      0,
      this.settings.batchSize,
    );
    let remaining = this.settings.batchSize;
    let recovered = 0;
    for (const poolId of lapsed) {
      if (remaining <= 0) break;
      if (poolId === ownPoolId) continue;
      const poolTasksKey = this.keys.poolTasks(poolId);
      const ids = await client.srandmember(poolTasksKey, Math.min(remaining, MAX_PER_CALL));
      remaining -= ids.length;
      const records = await this.readLive(ids);
      for (const queue of this.settings.queues) {
        const mine = records.filter((entry) => entry.record?.task.queue === queue);
        if (mine.length === 0) continue;
        recovered += await this.settle(
          queue,
          mine,
          (id, record) => errorToRecord(new WorkerLost(workerLost(id, record.task.name, poolId))),
          now,
          { poolId },
        );
      }
      // Unreadable or vanished ids belong to no queue: they only leave the pool's set.
      const orphans = records.filter((entry) => entry.record === null).map((entry) => entry.id);
      if (orphans.length > 0) await client.srem(poolTasksKey, ...orphans);
      const forgotten = await this.forgetPool(poolId, false);
      if (recovered > 0 || forgotten) {
        this.logger.warn(
          `worker pool "${poolId}" stopped beating: recovered ${recovered} of its task(s)` +
            (forgotten ? ', and forgot the pool' : ''),
        );
      }
    }
    return recovered;
  }

  /** Forgets a pool that holds nothing (see forgetPool-2.lua); `stopping` lapses it first. */
  async forgetPool(poolId: string, stopping: boolean): Promise<boolean> {
    return this.scripts.forgetPool(
      { poolsKey: this.keys.pools, poolTasksKey: this.keys.poolTasks(poolId) },
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
    const hashTtl = this.settings.taskHashTtl;
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
        // Like a deferred enqueue: the hash outlives the wait as well as a task's normal life.
        hashTtlMs: hashTtl + delayMs,
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
   * Ends attempts that stopped without an acknowledge: each record gets
   * `errorFor` appended and goes back for another attempt or is stored FAILED,
   * as nextAttempt decides; `guard` keeps a re-leased task safe. Unreadable
   * tasks (reaper only: pool recovery handles those itself) are stored FAILED.
   * Returns how many were still held.
   */
  private async settle(
    queue: string,
    entries: readonly LiveEntry[],
    errorFor: (id: string, record: TaskRecord) => TaskErrorRecord,
    now: number,
    guard: HolderGuard,
  ): Promise<number> {
    const at = new Date(now);
    const retries: TaskRecord[] = [];
    const finished: TaskRecord[] = [];
    for (const { id, record } of entries) {
      if (record === null) {
        // Nothing to run again: an unreadable task fails whatever its (unknowable) policy.
        const unreadable = this.codec.unreadable(id, queue, at, []);
        finished.push({ ...unreadable, errors: [errorFor(id, unreadable)] });
        continue;
      }
      const next = nextAttempt(record, errorFor(id, record), at);
      (isRetry(next) ? retries : finished).push(next);
    }
    const failed: AcknowledgeGroup = {
      runningKey: this.keys.running(queue),
      historyKey: this.keys.history(queue, 'failed'),
      ids: finished.map((record) => record.id),
      json: finished.map((record) => this.codec.encodeFinished(record)),
    };
    const [stored, sent] = await Promise.all([
      finished.length > 0
        ? this.scripts.acknowledge(
            [failed],
            // The reaper and recovery act for whichever pool held each task.
            storeSettings(this.keys, this.settings.resultTtl, ANY_POOL),
            guard,
          )
        : [],
      retries.length > 0 ? this.retry(retries, now, guard) : [],
    ]);
    return [...stored, ...sent].filter((reply) => reply === StoreReply.Stored).length;
  }

  /** History older than resultTtl (ingress counts expire by themselves); returns how many entries went. */
  private async trim(now: number): Promise<number> {
    const cutoff = now - this.settings.resultTtl;
    const pipeline = this.connection.client.pipeline();
    for (const queue of this.settings.queues) {
      pipeline.zremrangebyscore(this.keys.history(queue, 'successful'), '-inf', cutoff);
      pipeline.zremrangebyscore(this.keys.history(queue, 'failed'), '-inf', cutoff);
    }
    let trimmed = 0;
    for (const [error, removed] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      trimmed += Number(removed);
    }
    return trimmed;
  }

  private async heartbeat(now: number): Promise<void> {
    // Outlives many missed passes, so a stalled broker shows as stale, not as never started.
    const ttl = Math.max(this.settings.resultTtl, 100 * this.settings.brokerInterval);
    await this.connection.client.set(this.keys.brokerHeartbeat, String(now), 'PX', ttl);
  }
}
