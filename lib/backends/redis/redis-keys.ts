import type { FinishedSegment } from '../../core/queue-segment';
import { REDIS_BACKEND_DEFAULTS } from './redis-backend-options.interface';

// Characters SCAN MATCH treats as glob syntax; an alias may legally contain them.
const GLOB_SPECIAL = /[*?[\]\\]/g;

/**
 * The only place a Redis key of Threadmill is assembled. Every key of one
 * alias starts with `<prefix>:{alias}:` (`threadmill:{alias}:` by default),
 * so the whole alias hashes to one Redis Cluster slot (only the hash tag
 * counts, whatever the prefix) and every multi-key script stays on one
 * shard. Names and the prefix are validated before they get here (no `{`,
 * `}`, `:` or whitespace), so the layout cannot be broken by a queue or task id.
 *
 * @internal
 */
export class RedisKeys {
  /** `<prefix>:{alias}:` — the common start of every key, hash tag included. */
  readonly prefix: string;

  /** @param keyPrefix the backend's `prefix` option; the default is the layout of every earlier release. */
  constructor(
    readonly alias: string,
    keyPrefix: string = REDIS_BACKEND_DEFAULTS.prefix,
  ) {
    this.prefix = `${keyPrefix}:{${alias}}:`;
  }

  /** ZSET of ready ids, score = -priority * 1e13 + enqueue sequence (priority first, then FIFO). */
  queue(queue: string): string {
    return `${this.prefix}queue:${queue}`;
  }

  /** ZSET of started ids, score = lease deadline (ms). */
  running(queue: string): string {
    return `${this.prefix}running:${queue}`;
  }

  /** ZSET of ids waiting for runAfter, score = runAfter (ms). */
  deferred(queue: string): string {
    return `${this.prefix}deferred:${queue}`;
  }

  /**
   * HASH of one task: `data` plus the fields acquire changes while it is
   * live, and once finished its `outcome` too (it then expires after resultTtl).
   */
  task(id: string): string {
    return `${this.taskPrefix}${id}`;
  }

  /** Prefix of every task hash; acquire derives a popped id's hash from it. */
  get taskPrefix(): string {
    return `${this.prefix}task:`;
  }

  /** ZSET of finished ids scored by the time they were stored (history for telemetry and peek). */
  history(queue: string, segment: FinishedSegment): string {
    return `${this.prefix}results:${queue}:${segment}`;
  }

  /**
   * HASH counting the tasks enqueued in one hour (`hour` = hours since the
   * epoch, by Redis's clock), field = second since the epoch. Counters
   * instead of one entry per task keep a waiting task small; the hash
   * expires with its hour.
   */
  ingress(queue: string, hour: number): string {
    return `${this.ingressPrefix(queue)}${hour}`;
  }

  /** Prefix of a queue's ingress hashes; enqueue appends the hour of Redis's clock. */
  ingressPrefix(queue: string): string {
    return `${this.prefix}ingress:${queue}:`;
  }

  /**
   * LIST of wake-up tokens of one queue: enqueue, promote and release push,
   * an idle consumer BLPOPs. Bounded, so tokens nobody waits for cannot pile up.
   */
  wake(queue: string): string {
    return `${this.prefix}wake:${queue}`;
  }

  /**
   * SET of the names of the alias's paused queues: acquire leases nothing
   * of them until they are resumed.
   */
  get paused(): string {
    return `${this.prefix}paused`;
  }

  /**
   * HASH of queue limits, field = queue name, value = 'concurrency max
   * perMs' (0 for none); acquire reads it only while the paused set holds
   * ':limits'.
   */
  get limits(): string {
    return `${this.prefix}limits`;
  }

  /** ZSET of one rate-limited queue's starts within its window, score = start time (ms). */
  rate(queue: string): string {
    return `${this.prefix}rate:${queue}`;
  }

  /**
   * Prefix of the STRING marks of tasks the outbox relay moved, one per id,
   * each expiring after the relay's mark window: a repeated move is refused.
   */
  get movedPrefix(): string {
    return `${this.prefix}moved:`;
  }

  /** STRING mark of one moved task (see movedPrefix). */
  moved(id: string): string {
    return `${this.movedPrefix}${id}`;
  }

  /**
   * STRING: the outbox relay's fencing token, the highest generation issued
   * to a relay (INCR as it takes the lock) or seen in a move. A move carrying
   * a lower one comes from a relay another has replaced, and is refused whole.
   */
  get outboxGeneration(): string {
    return `${this.prefix}outbox-generation`;
  }

  /** STRING counter of enqueued tasks: the FIFO tie-break inside a ready score. */
  get sequence(): string {
    return `${this.prefix}sequence`;
  }

  /** ZSET of live worker pools, score = heartbeat deadline (ms); a pool past it is dead. */
  get pools(): string {
    return `${this.prefix}pools`;
  }

  /**
   * HASH of what each live pool said with its last beat: field = pool id,
   * value = that beat's time (ms, Redis's clock), a space, its PoolInfo
   * JSON (see beatPool-2.lua); forgotten with the pool.
   */
  get poolInfo(): string {
    return `${this.prefix}pool-info`;
  }

  /** SET of the task ids one worker pool holds, so recovering a dead pool reads only its own. */
  poolTasks(poolId: string): string {
    return `${this.poolTasksPrefix}${poolId}`;
  }

  /** Prefix of every pool's task set; scripts derive a task's set from the pool named in its hash. */
  get poolTasksPrefix(): string {
    return `${this.prefix}pool-tasks:`;
  }

  /**
   * ZSET of the cancel requests addressed to one pool: id of a running task
   * it holds, score = when the cancel was requested (ms, Redis's clock).
   */
  cancels(poolId: string): string {
    return `${this.cancelsPrefix}${poolId}`;
  }

  /** Prefix of every pool's cancel requests; cancel-5.lua appends the pool named in a task's hash. */
  get cancelsPrefix(): string {
    return `${this.prefix}cancels:`;
  }

  /**
   * STRING: epoch ms of the last maintenance pass. The key keeps the name it
   * was first released under, so pools and health checks of either release
   * read the same one.
   */
  get maintenanceHeartbeat(): string {
    return `${this.prefix}broker:heartbeat`;
  }

  /**
   * STRING written when the alias's store is first used (its time and a
   * random id), never changed or expired after: a process that finds it
   * missing or replaced after having seen it knows the store lost its data
   * (a restart without persistence, a flush). See RedisStoreMark.
   */
  get storeMark(): string {
    return `${this.prefix}store-mark`;
  }

  /** STRING naming the holder of a role, expiring when its lease runs out (see claimRole-1.lua). */
  role(role: string): string {
    return `${this.prefix}role:${role}`;
  }

  /** ZSET of schedule cursors, score = next tick due (ms, Redis's clock); a paused schedule has none. */
  get scheduleCursors(): string {
    return `${this.prefix}schedule-cursors`;
  }

  /** HASH of schedules, field = schedule id, value = its entry (definition, origin, app, paused) as JSON. */
  get scheduleEntries(): string {
    return `${this.prefix}schedules`;
  }

  /** HASH of each schedule's last tick, field = schedule id, value = tick time and task id as JSON. */
  get scheduleLastTicks(): string {
    return `${this.prefix}schedule-last-ticks`;
  }

  /** HASH of unique keys: field = key, value = id of the task that took it. */
  get uniqueKeys(): string {
    return `${this.prefix}unique`;
  }

  /** STRING holding a key's window (value = holder id), which expires when the window ends. */
  uniqueWindow(key: string): string {
    return `${this.uniqueWindowPrefix}${key}`;
  }

  /** Prefix of every window STRING; enqueueUnique derives a key's from it. */
  get uniqueWindowPrefix(): string {
    return `${this.prefix}unique-window:`;
  }

  /**
   * Pub/sub channel of the alias's finished tasks: the scripts that store a
   * task final publish there, once per call, while finishedListenerMark
   * exists (see storeFinished.function.lua).
   * A channel, not a key: it holds nothing, and a message sent while nobody
   * is subscribed is gone.
   */
  get finishedChannel(): string {
    return `${this.prefix}finished`;
  }

  /**
   * STRING whose presence says some process listens on finishedChannel: the
   * storing scripts publish only while it exists (see markListening-1.lua).
   * Keys and channels are apart in Redis, so it takes the channel's own
   * name, and a script told the channel also knows the mark.
   */
  get finishedListenerMark(): string {
    return this.finishedChannel;
  }

  /**
   * Pub/sub channel of the alias's live task events (started, progressed):
   * the scripts that lease a task or store its progress publish there, once
   * per call, while liveListenerMark exists (see publishLive.function.lua).
   * Apart from finishedChannel, so a process that waits for results is not
   * sent every start and progress.
   */
  get liveChannel(): string {
    return `${this.prefix}live`;
  }

  /** STRING whose presence says some process listens on liveChannel (as finishedListenerMark). */
  get liveListenerMark(): string {
    return this.liveChannel;
  }

  /** SCAN MATCH pattern for every key of this alias (glob characters in the alias escaped). */
  get scanPattern(): string {
    return `${this.prefix.replace(GLOB_SPECIAL, (char) => `\\${char}`)}*`;
  }
}
