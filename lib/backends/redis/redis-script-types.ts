import type { RedisKeys } from './redis-keys';

// What the Lua scripts are given and what they reply, named as the scripts'
// headers name them; RedisScripts lays them out as arguments.

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

/** What cancel-5.lua did. */
export enum CancelReply {
  Changed = -1,
  Missing = 0,
  Cancelled = 1,
  Requested = 2,
  AlreadyFinal = 3,
}

/** The keys of one task's queue and its hash that a cancel touches. */
export interface CancelKeys {
  queueKey: string;
  deferredKey: string;
  runningKey: string;
  /** The queue's cancelled history. */
  historyKey: string;
  taskKey: string;
}

export interface CancelArgs {
  id: string;
  /** The task's `workers` field as read ('' when absent): the script acts only if it is unchanged. */
  workersSeen: string;
  /** The CANCELLED outcome (RedisRecordCodec.encodeFinished). */
  outcome: string;
  resultTtlMs: number;
  cancelsPrefix: string;
  /** Where a task stored CANCELLED is announced (RedisKeys.finishedChannel). */
  channel: string;
  /** The announcement (finishedMessage). */
  message: string;
  /** The lease a running task is under as read (its last worker id): what its request names. */
  lease: string;
}

/** The keys of a final task that retryFinished-5.lua and removeFinished-3.lua touch. */
export interface FinishedTaskKeys {
  taskKey: string;
  /** The history set of its final status in its queue. */
  historyKey: string;
}

/** What retryFinished-5.lua stores: the READY record, while the outcome read is still stored. */
export interface RetryFinishedArgs {
  id: string;
  /** The task's `outcome` field as read: the script acts only if it is unchanged. */
  outcomeSeen: string;
  readyStatus: string;
  /** The READY record (RedisRecordCodec.encodeLive). */
  data: string;
  workersJson: string;
  fallbackScore: number;
  wakeBound: number;
  /** The unique key it holds again (not a debounced one's), null for none. */
  uniqueKey: string | null;
  taskPrefix: string;
  windowPrefix: string;
}

/** An enqueue refused because a task with `id` is stored: that task's hash fields. */
export interface EnqueueClash {
  /** The refused record's place in the call (from 0). */
  index: number;
  id: string;
  /** The hash fields in the order of TASK_HASH_FIELDS (null when absent). */
  fields: (string | null)[];
}

/** The keys of one queue an enqueue writes to. */
export interface EnqueueQueueKeys {
  queueKey: string;
  deferredKey: string;
  /** The queue's ingress counts of an hour are this followed by the hour (of Redis's clock). */
  ingressPrefix: string;
  wakeKey: string;
}

/** The fencing token an outbox move carries, and the key it is checked against. */
export interface OutboxFence {
  /** RedisKeys.outboxGeneration. */
  generationKey: string;
  /** The generation the moving relay took with the lock. */
  generation: number;
}

/**
 * The KEYS and ARGV of a script whose body runs before another's in one
 * call (moveOutboxed.lua before enqueue.lua's): laid out ahead of the other
 * script's own, and taken out before it reads them.
 */
export interface LeadingArgs {
  keys: readonly string[];
  argv: readonly (string | number)[];
}

/** No leading KEYS or ARGV: the script called on its own. */
export const NO_LEADING_ARGS: LeadingArgs = { keys: [], argv: [] };

/** The leading KEYS and ARGV of an outbox move: its fence, then the moved marks' prefix and window. */
export function outboxMoveArgs(
  fence: OutboxFence,
  marks: { movedPrefix: string; windowMs: number },
): LeadingArgs {
  return {
    keys: [fence.generationKey],
    argv: [marks.movedPrefix, marks.windowMs, fence.generation],
  };
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
  /** The queue's rate window, read only while it has a rate limit. */
  rateKey: string;
}

/** One leased task as acquire.lua returns it. */
export interface AcquiredRaw {
  id: string;
  /** null when the id had no task data. */
  data: string | null;
  startedAtMs: number;
  workersJson: string;
  /** When a cancel was asked of it while it was leased before (ms), null when none. */
  cancel: string | null;
}

/** What acquire.lua replies: a StoreReply per finished record, then what it leased. */
export interface AcquireReply {
  stored: StoreReply[];
  /** Null when every queue was empty (or the pool may lease nothing). */
  leased: { queueIndex: number; nowMs: number; tasks: AcquiredRaw[] } | null;
  /** How long ago the pool's heartbeat lapsed (ms, null when it has none). */
  poolLapsed?: { lapsedMs: number | null };
  /** Nothing leased and a limited queue was full: ms until it may admit a start. */
  limitWaitMs?: number;
}

/** Finished records of one queue, final status and task name: two arguments per record. */
export interface AcknowledgeGroup {
  /** The group's [queue, status, task name] as JSON, published with its stored ids (finishedLabel). */
  label: string;
  runningKey: string;
  /** The successful, failed or cancelled history of the queue. */
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
  /** Where the stored tasks are announced (RedisKeys.finishedChannel). */
  channel: string;
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
    channel: keys.finishedChannel,
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

/** The three keys of an alias's schedules (see RedisKeys). */
export interface ScheduleKeys {
  cursorsKey: string;
  entriesKey: string;
  lastTicksKey: string;
}

/** One schedule as the schedule scripts return it (null: absent). */
export interface ScheduleRaw {
  id: string;
  entryJson: string | null;
  /** The cursor's score as Redis formats it. */
  cursor: string | null;
  lastTickJson: string | null;
}

/** One record of an enqueue with unique keys (enqueueUnique.lua): eight arguments. */
export interface UniqueEnqueueItem {
  /** Index into the queues passed with the items. */
  queueIndex: number;
  priority: number;
  /** How long after Redis runs the enqueue the task is due (ms); null when ready now. */
  delayMs: number | null;
  id: string;
  /** The live encoding. */
  data: string;
  /** Its unique key, mode and window ttl; null for a record without a key. */
  unique: { key: string; mode: string; windowTtlMs: number | null } | null;
}

/** What enqueueUnique did with one record. */
export type UniqueEnqueueOutcome =
  | { kind: 'stored' }
  /** The key's stored holder returned: its id and hash fields (TASK_HASH_FIELDS order). */
  | { kind: 'returned'; id: string; fields: (string | null)[] }
  /** This record's data stored under the waiting holder's id (debounce). */
  | { kind: 'replaced'; id: string }
  /** The holder that record `index` of this call wrote, returned. */
  | { kind: 'returnedWritten'; index: number }
  /** Each only: refused, a task being stored under its id (its hash fields). */
  | { kind: 'clash'; fields: (string | null)[] }
  /** Each only: refused, a window holding its key whose task is gone. */
  | { kind: 'windowGone'; key: string; holderId: string; windowEndMs: number };

/** The reply of enqueueUnique: a refusal (nothing written), or an outcome per record. */
export type UniqueEnqueueReply =
  | { kind: 'clash'; clash: EnqueueClash }
  | { kind: 'windowGone'; key: string; holderId: string; windowEndMs: number }
  | { kind: 'done'; outcomes: UniqueEnqueueOutcome[] };
