import type { Cluster, Redis } from 'ioredis';

import { delayUntil } from '../../core/run-after';
import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisKeys } from './redis-keys';
import { REDIS_SCRIPTS, scriptSource, type RedisScriptName } from './redis-script-sources';

/** A client the backend talks through: one server or a cluster. */
export type RedisClient = Redis | Cluster;

/**
 * What a store script reports per record (acknowledge, acquire's stores,
 * retry): stored now, stale (not held), or already stored (not held, and
 * what is stored is this very record: an earlier call's reply was lost).
 */
export enum StoreReply {
  Stale = 0,
  Stored = 1,
  AlreadyStored = 2,
}

/** An enqueue that stored nothing because a task with `id` is stored: that task's hash fields. */
export interface EnqueueClash {
  id: string;
  /** The hash fields in the order of TASK_HASH_FIELDS (null when absent). */
  fields: (string | null)[];
}

/**
 * Most wake-up tokens a queue's list holds. Enough to wake that many idle
 * consumers at once; beyond it acquire chains one token on (see acquire.lua).
 */
export const WAKE_BOUND = 128;

// ioredis adds a method per defineCommand; this is its shape. Arguments go
// over as one array (ioredis flattens it), never spread: spreading a bulk
// enqueue's hundred thousand arguments into a call overflows the stack.
// A variadic script's array starts with its key count; a fixed one's, with its keys.
type ScriptCall = (args: (string | number)[]) => Promise<unknown>;

/** The keys of one queue an enqueue writes to. */
export interface EnqueueQueueKeys {
  queueKey: string;
  deferredKey: string;
  /** The queue's ingress counts of an hour are this followed by the hour (of Redis's clock). */
  ingressPrefix: string;
  wakeKey: string;
}

/** Consecutive new tasks of one queue, priority and delay: two arguments per task. */
export interface EnqueueGroup {
  /** Index into the queues passed with the groups. */
  queueIndex: number;
  priority: number;
  /** How long after Redis runs the enqueue the tasks are due (ms); null when ready now. */
  delayMs: number | null;
  ids: string[];
  /** Each task's data (the live encoding), in the order of `ids`. */
  data: string[];
}

export interface AcquireQueueKeys {
  queueKey: string;
  runningKey: string;
  wakeKey: string;
}

/** One leased task as acquire.lua returns it. */
export interface AcquiredRaw {
  id: string;
  /** null when the id had no task data. */
  data: string | null;
  startedAtMs: number;
  workersJson: string;
}

/** Finished records of one queue and one final status: two arguments per record. */
export interface AcknowledgeGroup {
  runningKey: string;
  /** The successful or failed history of the queue. */
  historyKey: string;
  ids: string[];
  /** Each record's outcome (RedisRecordCodec.encodeFinished), in the order of `ids`. */
  json: string[];
}

/** Where the keys a store derives from a task id start, and how long a result lives. */
export interface StoreSettings {
  resultTtlMs: number;
  taskPrefix: string;
  poolTasksPrefix: string;
  /** The pool the stored tasks leave; see PoolHint. */
  poolHint: PoolHint;
}

export interface RetryItem {
  runningKey: string;
  taskKey: string;
  deferredKey: string;
  queueKey: string;
  wakeKey: string;
  id: string;
  /** The retried record in the live encoding (errors grown, runAfter moved). */
  data: string;
  workersJson: string;
  /** Wait before the next attempt, measured on the deciding clock (ms); 0 when due now. */
  delayMs: number;
  /** Used only when the task's hash (which keeps its ready score) is gone. */
  fallbackScore: number;
}

/** Which holder a reaper or recovery write may replace; a task leased again meanwhile is left alone. */
export interface HolderGuard {
  /** Only leases that ended by then (ms since epoch, Redis's clock). */
  latestDeadlineMs?: number;
  /** Only tasks this pool holds. */
  poolId?: string;
}

/** The StoreSettings of an alias: its key prefixes and result TTL. */
export function storeSettings(
  keys: RedisKeys,
  resultTtlMs: number,
  poolHint: PoolHint,
): StoreSettings {
  return {
    resultTtlMs,
    taskPrefix: keys.taskPrefix,
    poolTasksPrefix: keys.poolTasksPrefix,
    poolHint,
  };
}

/**
 * The pool whose task set an acknowledge takes its tasks out of: a pool id,
 * none (`''`: the caller belongs to no pool), or `'*'` to read each task's
 * own from its hash (the reaper, which acts for whoever held the task).
 */
export type PoolHint = string;

/** PoolHint for a caller that acts for every holder. */
export const ANY_POOL: PoolHint = '*';

export interface ReleaseItem {
  runningKey: string;
  queueKey: string;
  taskKey: string;
  wakeKey: string;
  id: string;
  /** Used only when the task's hash (which keeps its ready score) is gone. */
  fallbackScore: number;
  /**
   * A task that never started: the workers list (JSON) its lease must still
   * have, and the list to put back (the one before that lease). Absent for a
   * task that ran.
   */
  unstarted?: { leasedWorkers: string; workersBefore: string };
}

/**
 * Typed calls of the Lua scripts in `lua/`. The scripts are registered on the
 * client with `defineCommand` once (ioredis sends EVAL the first time on each
 * socket and EVALSHA after, and resends on NOSCRIPT, so they survive a Redis
 * restart or SCRIPT FLUSH). Callers pass named keys and arguments; this class
 * lays them out as the script headers say.
 *
 * @internal
 */
export class RedisScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(private readonly client: RedisClient) {
    const calls: Partial<Record<RedisScriptName, ScriptCall>> = {};
    for (const name of Object.keys(REDIS_SCRIPTS) as RedisScriptName[]) {
      calls[name] = this.define(name);
    }
    this.calls = calls as Record<RedisScriptName, ScriptCall>;
  }

  /**
   * Stores the tasks (all or none): null, or the first task already stored
   * under one of the ids, when nothing was stored.
   */
  async enqueue(
    sequenceKey: string,
    queues: readonly EnqueueQueueKeys[],
    groups: readonly EnqueueGroup[],
    args: {
      taskPrefix: string;
      resultTtlMs: number;
      priorityWeight: number;
      wakeBound: number;
    },
  ): Promise<EnqueueClash | null> {
    const argv: (string | number)[] = [0, sequenceKey];
    for (const queue of queues) {
      argv.push(queue.queueKey, queue.deferredKey, queue.ingressPrefix, queue.wakeKey);
    }
    argv[0] = argv.length - 1;
    argv.push(args.wakeBound, args.priorityWeight, args.taskPrefix, args.resultTtlMs);
    for (const group of groups) {
      argv.push(group.queueIndex + 1, group.priority, group.delayMs ?? '', group.ids.length);
      pushPairs(argv, group.ids, group.data);
    }
    const reply = (await this.calls.enqueue(argv)) as (string | number | null)[];
    if ((reply[0] as number) >= 0) return null;
    return { id: reply[1] as string, fields: reply.slice(2) as (string | null)[] };
  }

  /**
   * Stores `finished` (a StoreReply per record, in their order),
   * then leases up to `max` tasks from the first non-empty queue (null when
   * all are empty), in one call. `poolLapsed` when the caller's pool may
   * lease nothing (its heartbeat lapsed by Redis's clock, or is missing).
   */
  async acquire(
    pool: { poolTasksKey: string; poolsKey: string },
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
    },
    store: StoreSettings,
    finished: readonly AcknowledgeGroup[] = [],
  ): Promise<{
    stored: StoreReply[];
    leased: { queueIndex: number; nowMs: number; tasks: AcquiredRaw[] } | null;
    /** How long ago the pool's heartbeat lapsed (ms, null when it has none). */
    poolLapsed?: { lapsedMs: number | null };
  }> {
    const argv: (string | number)[] = [0, pool.poolTasksKey, pool.poolsKey];
    for (const queue of queues) argv.push(queue.queueKey, queue.runningKey, queue.wakeKey);
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
    );
    pushGroups(argv, finished);
    const reply = (await this.calls.acquire(argv)) as (string | number | null)[];
    const storedCount = reply[0] as number;
    const stored = reply.slice(1, storedCount + 1) as StoreReply[];
    const queueIndex = reply[storedCount + 1] as number;
    if (queueIndex === 0) return { stored, leased: null };
    if (queueIndex < 0) {
      const now = Number(reply[storedCount + 2]);
      const deadline = reply[storedCount + 3];
      const lapsedMs = deadline === null ? null : now - Number(deadline);
      return { stored, leased: null, poolLapsed: { lapsedMs } };
    }
    const tasks: AcquiredRaw[] = [];
    for (let i = storedCount + 3; i < reply.length; i += 4) {
      tasks.push({
        id: reply[i] as string,
        data: reply[i + 1] as string | null,
        startedAtMs: Number(reply[i + 2]),
        workersJson: reply[i + 3] as string,
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
    keys: { poolsKey: string; poolTasksKey: string },
    args: { poolId: string; stopping: boolean },
  ): Promise<boolean> {
    const reply = await this.calls.forgetPool([
      keys.poolsKey,
      keys.poolTasksKey,
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

  /** Pool `poolId` is alive until Redis's time plus `ttlMs`; returns that deadline (Redis's clock). */
  async beatPool(poolsKey: string, poolId: string, ttlMs: number): Promise<number> {
    return Number(await this.calls.beatPool([poolsKey, poolId, ttlMs]));
  }

  private define(name: RedisScriptName): ScriptCall {
    // Namespaced so it cannot clash with a command a user defined on a shared client.
    const command = `threadmill_${name}`;
    if (typeof Reflect.get(this.client, command) !== 'function') {
      const { lua, numberOfKeys } = scriptSource(name);
      this.client.defineCommand(
        command,
        numberOfKeys === undefined ? { lua } : { lua, numberOfKeys },
      );
    }
    const call = Reflect.get(this.client, command) as ScriptCall;
    return call.bind(this.client);
  }
}

/**
 * The enqueue groups of `records` (whose queue indexes and encoded data are
 * `queueOf` and `data`): consecutive tasks alike in queue, priority and delay
 * share one, so enqueue order (FIFO) is kept. Each delay is what is left of
 * its runAfter at `now`, read on the enqueuer's clock right before the call.
 */
export function enqueueGroups(
  records: readonly TaskRecord[],
  queueOf: readonly number[],
  data: readonly string[],
  now: number,
): EnqueueGroup[] {
  const groups: EnqueueGroup[] = [];
  let group: EnqueueGroup | undefined;
  records.forEach((record, i) => {
    const queueIndex = queueOf[i];
    const { priority } = record.task;
    const delayMs = delayUntil(record.task.runAfter, now) || null;
    if (
      group?.queueIndex !== queueIndex ||
      group.priority !== priority ||
      group.delayMs !== delayMs
    ) {
      group = { queueIndex, priority, delayMs, ids: [], data: [] };
      groups.push(group);
    }
    group.ids.push(record.id);
    group.data.push(data[i]);
  });
  return groups;
}

/** Appends `a[i], b[i]` for every i: the (id, value) pairs of a group. */
function pushPairs(argv: (string | number)[], a: readonly string[], b: readonly string[]): void {
  for (let i = 0; i < a.length; i++) argv.push(a[i], b[i]);
}

/** Appends each finished group as its count and its (id, final record) pairs. */
function pushGroups(argv: (string | number)[], groups: readonly AcknowledgeGroup[]): void {
  for (const group of groups) {
    argv.push(group.ids.length);
    pushPairs(argv, group.ids, group.json);
  }
}
