import type { RedisClient } from './redis-clients';
import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type {
  AcknowledgeGroup,
  AcquireQueueKeys,
  AcquireReply,
  AcquiredRaw,
  HolderGuard,
  ReleaseItem,
  RetryItem,
  StoreReply,
  StoreSettings,
} from './redis-script-types';
import { RedisEnqueueScript } from './redis-enqueue-script';
import { RedisUniqueScripts } from './redis-unique-scripts';

/**
 * Most wake-up tokens a queue's list holds. Enough to wake that many idle
 * consumers at once; beyond it acquire chains one token on (see acquire.lua).
 */
export const WAKE_BOUND = 128;

/**
 * Typed calls of the Lua scripts in `lua/`, registered on the client once
 * (see defineScriptCalls). Callers pass named keys and arguments; this class
 * lays them out as the script headers say.
 *
 * @internal
 */
export class RedisScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;
  /** The enqueue of tasks without unique keys, registered with the rest. */
  readonly enqueue: RedisEnqueueScript;
  /** The unique-key scripts, registered with the rest. */
  readonly unique: RedisUniqueScripts;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
    this.enqueue = new RedisEnqueueScript(this.calls);
    this.unique = new RedisUniqueScripts(this.calls);
  }

  /**
   * Stores `finished` (a StoreReply per record, in their order),
   * then leases up to `max` tasks from the first non-empty queue (null when
   * all are empty), in one call. `poolLapsed` when the caller's pool may
   * lease nothing (its heartbeat lapsed by Redis's clock, or is missing).
   * A paused queue (a member of `pausedKey`) is skipped; a limited one
   * (`limitsKey`) leases at most its room.
   */
  async acquire(
    fixed: { poolTasksKey: string; poolsKey: string; pausedKey: string; limitsKey: string },
    queues: readonly AcquireQueueKeys[],
    args: {
      /** Sent behind an idle wait: it runs when the wait ends (see acquire.lua). */
      sentBehindWait: boolean;
      leaseTtlMs: number;
      max: number;
      workerJson: string;
      runningStatus: string;
      /** The caller's pool, or empty when it belongs to none. */
      poolId: string;
      /** The queues' names in the order of `queues`, separated by spaces. */
      queueNames: string;
      /** Where the leased tasks are announced as started (RedisKeys.liveChannel). */
      liveChannel: string;
    },
    store: StoreSettings,
    finished: readonly AcknowledgeGroup[] = [],
  ): Promise<AcquireReply> {
    const argv: (string | number)[] = [
      0,
      fixed.poolTasksKey,
      fixed.poolsKey,
      fixed.pausedKey,
      fixed.limitsKey,
    ];
    for (const queue of queues) {
      argv.push(queue.queueKey, queue.runningKey, queue.wakeKey, queue.rateKey);
    }
    for (const group of finished) argv.push(group.runningKey, group.historyKey);
    argv[0] = argv.length - 1;
    argv.push(
      args.sentBehindWait ? 1 : 0,
      args.leaseTtlMs,
      args.max,
      args.workerJson,
      store.taskPrefix,
      args.runningStatus,
      args.poolId,
      queues.length,
      store.resultTtlMs,
      store.poolTasksPrefix,
      store.poolHint,
      args.queueNames,
      store.channel,
      args.liveChannel,
    );
    pushGroups(argv, finished);
    const reply = (await this.calls.acquire(argv)) as (string | number | null)[];
    const storedCount = reply[0] as number;
    const stored = reply.slice(1, storedCount + 1) as StoreReply[];
    const queueIndex = reply[storedCount + 1] as number;
    if (queueIndex === 0) {
      const limitWaitMs = Number(reply[storedCount + 2]);
      return limitWaitMs > 0 ? { stored, leased: null, limitWaitMs } : { stored, leased: null };
    }
    if (queueIndex < 0) {
      const now = Number(reply[storedCount + 2]);
      const deadline = reply[storedCount + 3];
      const lapsedMs = deadline === null ? null : now - Number(deadline);
      return { stored, leased: null, poolLapsed: { lapsedMs } };
    }
    const tasks: AcquiredRaw[] = [];
    for (let i = storedCount + 3; i < reply.length; i += 5) {
      tasks.push({
        id: reply[i] as string,
        data: reply[i + 1] as string | null,
        startedAtMs: Number(reply[i + 2]),
        workersJson: reply[i + 3] as string,
        cancel: reply[i + 4] as string | null,
      });
    }
    const nowMs = Number(reply[storedCount + 2]);
    return { stored, leased: { queueIndex: queueIndex - 1, nowMs, tasks } };
  }

  /**
   * Stores finished records that are still leased; per record (in the groups'
   * order) what happened. `guard` limits it to one holder (reaper, pool recovery).
   */
  async acknowledge(
    groups: readonly AcknowledgeGroup[],
    store: StoreSettings,
    guard: HolderGuard = {},
  ): Promise<StoreReply[]> {
    const argv: (string | number)[] = [0];
    for (const group of groups) argv.push(group.runningKey, group.historyKey);
    argv[0] = argv.length - 1;
    argv.push(
      store.resultTtlMs,
      guard.latestDeadlineMs ?? '',
      guard.poolId ?? '',
      store.poolTasksPrefix,
      store.poolHint,
      store.taskPrefix,
      store.channel,
    );
    pushGroups(argv, groups);
    return (await this.calls.acknowledge(argv)) as StoreReply[];
  }

  /**
   * Sends still-leased tasks back for another attempt (deferred, or ready when
   * due); per record what happened (Stored: sent back).
   */
  async retry(
    items: readonly RetryItem[],
    args: { readyStatus: string; poolTasksPrefix: string; wakeBound: number },
    guard: HolderGuard = {},
  ): Promise<StoreReply[]> {
    const keys: (string | number)[] = [0];
    const argv: (string | number)[] = [
      args.readyStatus,
      guard.latestDeadlineMs ?? '',
      guard.poolId ?? '',
      args.poolTasksPrefix,
      args.wakeBound,
    ];
    for (const item of items) {
      keys.push(item.runningKey, item.taskKey, item.deferredKey, item.queueKey, item.wakeKey);
      argv.push(item.id, item.data, item.workersJson, item.delayMs, item.fallbackScore);
    }
    keys[0] = keys.length - 1;
    return (await this.calls.retry(keys.concat(argv))) as StoreReply[];
  }

  /** Puts still-leased tasks back at their ready score; returns how many went back. */
  async release(
    items: readonly ReleaseItem[],
    readyStatus: string,
    wakeBound: number,
    poolTasksPrefix: string,
  ): Promise<number> {
    const keys: (string | number)[] = [0];
    const args: (string | number)[] = [readyStatus, wakeBound, poolTasksPrefix];
    for (const item of items) {
      keys.push(item.runningKey, item.queueKey, item.taskKey, item.wakeKey);
      args.push(
        item.id,
        item.fallbackScore,
        item.unstarted?.leasedWorkers ?? '',
        item.unstarted?.workersBefore ?? '',
      );
    }
    keys[0] = keys.length - 1;
    return (await this.calls.release(keys.concat(args))) as number;
  }

  /** Moves up to `max` due deferred tasks of one queue to its ready queue; returns how many. */
  async promoteDeferred(
    keys: { deferredKey: string; queueKey: string; wakeKey: string },
    args: { max: number; taskPrefix: string; wakeBound: number },
  ): Promise<number> {
    return (await this.calls.promoteDeferred([
      keys.deferredKey,
      keys.queueKey,
      keys.wakeKey,
      args.max,
      args.taskPrefix,
      args.wakeBound,
    ])) as number;
  }

  /**
   * Forgets a pool that holds nothing; `stopping` lapses it first (clean stop).
   * Returns whether it was forgotten.
   */
  async forgetPool(
    keys: { poolsKey: string; poolTasksKey: string; cancelsKey: string; poolInfoKey: string },
    args: { poolId: string; stopping: boolean },
  ): Promise<boolean> {
    const reply = await this.calls.forgetPool([
      keys.poolsKey,
      keys.poolTasksKey,
      keys.cancelsKey,
      keys.poolInfoKey,
      args.poolId,
      args.stopping ? 1 : 0,
    ]);
    return reply === 1;
  }

  /**
   * Removes the finished tasks of one history set past their retention (age
   * by Redis's time, then the oldest beyond `maxCount`), at most `max`;
   * returns how many went.
   */
  async trimFinished(
    historyKey: string,
    args: { taskPrefix: string; maxAgeMs: number; maxCount: number | null; max: number },
  ): Promise<number> {
    return (await this.calls.trimFinished([
      historyKey,
      args.taskPrefix,
      args.maxAgeMs,
      args.maxCount ?? '',
      args.max,
    ])) as number;
  }

  /** Redis's time and the last maintenance pass's (both ms since epoch, Redis's clock; null: none yet). */
  async storeTime(
    maintenanceHeartbeatKey: string,
  ): Promise<{ nowMs: number; maintenancePassMs: number | null }> {
    const [now, pass] = (await this.calls.storeTime([maintenanceHeartbeatKey])) as [
      number,
      string | null,
    ];
    return { nowMs: Number(now), maintenancePassMs: pass === null ? null : Number(pass) };
  }

  /**
   * Pool `poolId` is alive until Redis's time plus `ttlMs`, `info` (PoolInfo
   * JSON, or empty to keep the stored one) kept with the beat; returns that
   * deadline (Redis's clock).
   */
  async beatPool(
    keys: { poolsKey: string; poolInfoKey: string },
    args: { poolId: string; ttlMs: number; info: string },
  ): Promise<number> {
    return Number(
      await this.calls.beatPool([
        keys.poolsKey,
        keys.poolInfoKey,
        args.poolId,
        args.ttlMs,
        args.info,
      ]),
    );
  }
}

/** Appends `a[i], b[i]` for every i: the (id, value) pairs of a group. */
function pushPairs(argv: (string | number)[], a: readonly string[], b: readonly string[]): void {
  for (let i = 0; i < a.length; i++) argv.push(a[i], b[i]);
}

/** Appends each finished group as its label, its count and its (id, final record) pairs. */
function pushGroups(argv: (string | number)[], groups: readonly AcknowledgeGroup[]): void {
  for (const group of groups) {
    argv.push(group.label, group.ids.length);
    pushPairs(argv, group.ids, group.json);
  }
}
