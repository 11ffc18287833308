import { Logger } from '@nestjs/common';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { BackendTelemetry } from '../../core/backend-telemetry.interface';
import { assertDistinctIds } from '../../core/distinct-ids';
import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { PoolHeartbeatLapsedError } from '../../core/errors/pool-heartbeat-lapsed.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
  BackendFeatures,
  MaintenancePassOptions,
  MaintenancePassReport,
  QueueSegment,
  RetryOutcome,
  TaskBackend,
} from '../../core/task-backend.interface';
import { isRetry } from '../../core/retry-policy';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult } from '../../core/task-result';
import { FINISHED_STATUSES, TaskResultStatus } from '../../core/task-result-status.enum';
import { errorToRecord } from '../../core/task-serializer';
import {
  acknowledgeUnfinished,
  backendClosed,
  enqueueOutcomeUnknown,
  taskAlreadyExists,
  retryNotReady,
  invalidBackendOption,
  leasesLeftToReaper,
  poolHeartbeatLapsed,
  poolHeartbeatResumed,
  queueNotConfigured,
  taskResultDoesNotExist,
} from '../../core/threadmill.messages';
import { sleep } from '../../utils/sleep.util';
import { parseRedisBackendConfig, type RedisBackendSettings } from './redis-backend-config.parser';
import { RedisConnection } from './redis-connection';
import { RedisKeys } from './redis-keys';
import { PRIORITY_WEIGHT, RedisRecordCodec, TASK_HASH_FIELDS } from './redis-record.codec';
import {
  RedisScripts,
  type RedisClient,
  WAKE_BOUND,
  type AcknowledgeGroup,
  type AcquireQueueKeys,
  type AcquiredRaw,
  type EnqueueClash,
  enqueueGroups,
  type EnqueueQueueKeys,
  type PoolHint,
  type ReleaseItem,
  storeSettings,
  StoreReply,
  ANY_POOL,
} from './redis-scripts';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { MAX_PER_CALL, RedisMaintenance } from './redis-maintenance';
import { RedisTelemetry } from './redis-telemetry';

/** How long a look that found every queue empty spares the next waiting call its own look. */
const EMPTY_LOOK_FRESH_MS = 1000;
/** How often a waiting acquire under a pool whose heartbeat lapsed looks whether it beat again. */
const POOL_BEAT_RECHECK_MS = 250;

/** What one acquire round trip did (see take). */
interface Taken {
  stored: StoreReply[];
  /** Null when every queue was empty, or when the pool may lease nothing. */
  records: TaskRecord[] | null;
  poolLapsed?: boolean;
}

/** What one acquire script call is asked to do. */
interface TakeCall {
  max: number;
  workerId: string;
  workerJson: string;
  poolId: string;
  finished: readonly AcknowledgeGroup[];
}

/**
 * The Redis backend: durable priority queues with leases, one Lua script per
 * atomic operation, every key of an alias under the hash tag `{alias}` (so it
 * runs unchanged on Redis Cluster). Constructed by ThreadmillModule from a
 * BackendConfig; connects lazily on first use.
 *
 * @example
 * ```ts
 * ThreadmillModule.forRoot({
 *   backends: {
 *     default: { backend: RedisBackend, url: 'redis://localhost:6379/0', queues: ['default', 'emails'] },
 *   },
 * });
 * ```
 * @throws InvalidBackendConfigError when an option, the url or a queue name is invalid (names the alias and option).
 * @publicApi
 */
export class RedisBackend implements TaskBackend {
  readonly queues: readonly string[];
  readonly features: BackendFeatures = {
    defer: true,
    bulkEnqueue: true,
    blockingAcquire: true,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;
  readonly maxPayloadBytes: number;

  private readonly settings: RedisBackendSettings;
  private readonly keys: RedisKeys;
  private readonly codec: RedisRecordCodec;
  private readonly connection: RedisConnection;
  private readonly scripts: RedisScripts;
  private readonly maintenance: RedisMaintenance;
  private readonly telemetryReader: RedisTelemetry;
  private readonly logger: Logger;
  private readonly queueSet: ReadonlySet<string>;
  // Acquire keys per queue order: built once, reused by every call of a worker slot.
  private readonly acquireKeyCache = new Map<string, AcquireQueueKeys[]>();
  private readonly blockerScripts = new WeakMap<RedisClient, RedisScripts>();
  /** When the latest look at each list of queues (by acquireKeys' array) found them all empty. */
  private readonly foundEmptyAt = new WeakMap<AcquireQueueKeys[], number>();
  private closed = false;
  /**
   * Whose pool task set this instance's acknowledgements leave: '' until it
   * acquires or beats for a pool, that pool's id after (a pool's processes
   * each have their own instance), ANY_POOL once it has seen two pools.
   */
  private poolHint: PoolHint = '';
  /** Pools this instance was refused leases for (heartbeat lapsed), and by how much (ms; null: none). */
  private readonly lapsedPools = new Map<string, number | null>();

  /**
   * @param alias the backend alias; its name is the hash tag of every key.
   * @param config url (or options.clusterNodes / options.client), queues and RedisBackendOptions.
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
  ) {
    this.settings = parseRedisBackendConfig(alias, config);
    this.queues = this.settings.queues;
    this.queueSet = new Set(this.queues);
    this.maintenanceIntervalMs = this.settings.maintenanceInterval;
    this.leaseTtlMs = this.settings.leaseTtl;
    this.maxPayloadBytes = this.settings.maxPayloadBytes;
    this.logger = new Logger(`RedisBackend:${alias}`);
    this.keys = new RedisKeys(alias);
    this.codec = new RedisRecordCodec(alias, this.settings.maxPayloadBytes);
    this.connection = new RedisConnection(this.settings);
    this.scripts = new RedisScripts(this.connection.client);
    this.maintenance = new RedisMaintenance(
      this.settings,
      this.keys,
      this.scripts,
      this.connection,
      this.codec,
      this.logger,
    );
    this.telemetryReader = new RedisTelemetry(
      this.queues,
      this.settings.retention.longestMaxAgeMs,
      this.keys,
      this.scripts,
      this.connection,
    );
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    await this.enqueueMany([record]);
    return record;
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    this.assertOpen();
    if (records.length === 0) return [];
    const queueIndexes = new Map<string, number>();
    const queueKeys: EnqueueQueueKeys[] = [];
    assertDistinctIds(records);
    const ids = records.map((record) => record.id);
    const queueOf = new Array<number>(records.length);
    const data = new Array<string>(records.length);
    records.forEach((record, i) => {
      const queue = this.checkQueue(record);
      let queueIndex = queueIndexes.get(queue);
      if (queueIndex === undefined) {
        queueIndex = queueKeys.length;
        queueIndexes.set(queue, queueIndex);
        queueKeys.push({
          queueKey: this.keys.queue(queue),
          deferredKey: this.keys.deferred(queue),
          ingressPrefix: this.keys.ingressPrefix(queue),
          wakeKey: this.keys.wake(queue),
        });
      }
      queueOf[i] = queueIndex;
      data[i] = this.codec.encodeLive(record);
    });
    const clash = await this.connection.run(
      () =>
        this.scripts.enqueue(
          this.keys.sequence,
          queueKeys,
          // Delays are read now, as the call goes: the script adds them to Redis's clock.
          enqueueGroups(records, queueOf, data, Date.now()),
          {
            taskPrefix: this.keys.taskPrefix,
            resultTtlMs: this.settings.retention.longestMaxAgeMs,
            priorityWeight: PRIORITY_WEIGHT,
            wakeBound: WAKE_BOUND,
          },
        ),
      (reason, cause) =>
        new EnqueueOutcomeUnknownError(enqueueOutcomeUnknown(this.alias, ids, reason), ids, {
          cause,
        }),
    );
    if (clash) throw this.alreadyExists(clash);
    return [...records];
  }

  /**
   * Throws PoolHeartbeatLapsedError when `options.poolId`'s heartbeat had
   * lapsed by Redis's clock and did not come back within the timeout: an
   * empty result would read as "no work", and a draining worker would stop.
   */
  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const { acquired, poolLapsed } = await this.acknowledgeAndAcquire([], queues, options);
    if (poolLapsed) {
      const poolId = options.poolId ?? '';
      throw new PoolHeartbeatLapsedError(
        poolHeartbeatLapsed(this.alias, poolId, this.lapsedPools.get(poolId) ?? null),
      );
    }
    return acquired;
  }

  /**
   * Stores `finished` and leases the next tasks in one script call: a busy
   * worker slot costs one round trip per task. Without finished records it is
   * `acquire`.
   */
  async acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    this.assertOpen();
    // Nothing to consume, nothing to wait on (BLPOP needs at least one key).
    if (queues.length === 0) {
      return { acknowledged: await this.acknowledge(finished), acquired: [] };
    }
    const { groups, order } = this.finishedGroups(finished);
    const { workerId, signal } = options;
    const poolId = options.poolId ?? '';
    if (poolId !== '') this.notePool(poolId);
    const max = Math.min(Math.max(Math.floor(options.max ?? 1), 1), MAX_PER_CALL);
    const queueKeys = this.acquireKeys(queues);
    const workerJson = JSON.stringify(workerId);
    const timeoutMs = Number.isFinite(options.timeoutMs) ? options.timeoutMs : 2 ** 31;
    const deadline = Date.now() + timeoutMs;
    const call: TakeCall = { max, workerId, workerJson, poolId, finished: [] };
    let storing = groups;
    let acknowledged: AcknowledgeOutcome[] = [];
    const result = (acquired: TaskRecord[], poolLapsed = false): AcknowledgeAndAcquireResult =>
      poolLapsed ? { acknowledged, acquired, poolLapsed } : { acknowledged, acquired };
    // A waiting call right after a look found these queues empty (typically this
    // worker's last call, which stored its last task) goes straight to its wait:
    // the acquire sent behind the wait is its look, and every task readied since
    // pushed a token that ends the wait at once. A round trip saved whenever a
    // worker goes idle; a call long after the last look still looks first.
    if (groups.length === 0 && timeoutMs > 0 && this.foundEmptyJustNow(queueKeys)) {
      const woken = await this.waitThenTake(queues, queueKeys, call, deadline, signal);
      if (woken !== null && woken !== 'lapsed') return result(this.sawWork(queueKeys, woken));
    }
    for (;;) {
      // Closing the backend ends a wait like an abort: the caller is shutting down.
      const stopping = signal?.aborted === true || this.closed;
      if (stopping && storing.length === 0) return result([]);
      let taken: Taken;
      try {
        // Stopping: what finished is still stored, nothing new is leased.
        taken = await this.take(queues, queueKeys, {
          ...call,
          max: stopping ? 0 : max,
          finished: storing,
        });
      } catch (error) {
        if (this.closed && storing.length === 0) return result([]);
        throw error;
      }
      if (!stopping) {
        if (taken.records === null && !taken.poolLapsed) {
          this.foundEmptyAt.set(queueKeys, Date.now());
        } else {
          this.foundEmptyAt.delete(queueKeys);
        }
      }
      if (storing.length > 0) {
        acknowledged = this.outcomes(finished, order, taken.stored);
        storing = [];
        // The caller learns the outcomes now; it can wait for work with a plain acquire.
        if (stopping || !taken.records?.length) return result([], taken.poolLapsed);
      }
      if (taken.poolLapsed) {
        // Its pool beats every maintenance pass: look again shortly, within the caller's timeout.
        const remaining = deadline - Date.now();
        if (remaining <= 0) return result([], true);
        await sleep(Math.min(remaining, POOL_BEAT_RECHECK_MS), signal);
        continue;
      }
      if (taken.records === null) {
        // No token means nothing became ready: every path that readies a task
        // (enqueue, promote, release, a full acquire) pushes one. So no second look.
        const woken = await this.waitThenTake(queues, queueKeys, call, deadline, signal);
        if (woken !== null && woken !== 'lapsed') return result(this.sawWork(queueKeys, woken));
        // A token, and the lease is ours to make (nothing rode behind the wait), or the
        // pool lapsed while it waited: look now.
      } else if (taken.records.length > 0) {
        return result(taken.records);
      }
      // Everything taken was unreadable and has been failed: look again at once.
    }
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    this.assertOpen();
    if (records.length === 0) return [];
    const { groups, order } = this.finishedGroups(records);
    const stored = await this.connection.run(() =>
      this.scripts.acknowledge(
        groups,
        storeSettings(this.keys, this.settings.retention.longestMaxAgeMs, this.poolHint),
      ),
    );
    return this.outcomes(records, order, stored);
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    this.assertOpen();
    if (records.length === 0) return [];
    for (const record of records) {
      if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
      this.checkQueue(record);
    }
    // Each runAfter was set on this process's clock: the wait left is read as the call goes.
    const sent = await this.connection.run(() => this.maintenance.retry(records, Date.now()));
    return sent.map((reply): RetryOutcome => {
      if (reply === StoreReply.Stored) return 'retried';
      return reply === StoreReply.AlreadyStored ? 'already-stored' : 'stale';
    });
  }

  /** Alive until Redis's time plus `ttlMs` (see beatPool-1.lua), whatever this host's clock says. */
  async beatPool(poolId: string, ttlMs: number): Promise<void> {
    this.assertOpen();
    this.notePool(poolId);
    await this.connection.run(() => this.scripts.beatPool(this.keys.pools, poolId, ttlMs));
  }

  async retirePool(poolId: string): Promise<void> {
    this.assertOpen();
    await this.connection.run(() => this.maintenance.forgetPool(poolId, true));
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    return this.putBack(records, false);
  }

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.putBack(records, true);
  }

  private async putBack(records: readonly TaskRecord[], unstarted: boolean): Promise<number> {
    this.assertOpen();
    if (records.length === 0) return 0;
    const items = records.map((record): ReleaseItem => {
      const queue = this.checkQueue(record);
      return {
        runningKey: this.keys.running(queue),
        queueKey: this.keys.queue(queue),
        taskKey: this.keys.task(record.id),
        wakeKey: this.keys.wake(queue),
        id: record.id,
        fallbackScore: RedisRecordCodec.fallbackScore(record),
        ...(unstarted && {
          unstarted: {
            leasedWorkers: JSON.stringify(record.workerIds),
            workersBefore: JSON.stringify(record.workerIds.slice(0, -1)),
          },
        }),
      };
    });
    return this.connection.run(() =>
      this.scripts.release(items, TaskResultStatus.READY, WAKE_BOUND, this.keys.poolTasksPrefix),
    );
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    this.assertOpen();
    this.checkQueueName(queue);
    if (count <= 0) return [];
    return this.connection.run(async () => {
      // History is scored by Redis's time: what is within resultTtl is measured on it too.
      const finished = segment === 'successful' || segment === 'failed';
      // Finished tasks within the longest retention; each queue and status's own limit is applied
      // by the trimming step of every pass.
      const since = finished
        ? (await this.maintenance.storeNow()) - this.settings.retention.longestMaxAgeMs
        : 0;
      const found: TaskRecord[] = [];
      for (let offset = 0; found.length < count; offset += count) {
        const ids = await this.segmentIds(queue, segment, offset, count, since);
        found.push(...(await this.readMany(ids, segment)));
        if (ids.length < count) break;
      }
      return found.slice(0, count);
    });
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    this.assertOpen();
    return this.telemetryReader.read(intervalMs);
  }

  async getResult(id: string): Promise<TaskRecord> {
    this.assertOpen();
    // Live or finished, a task is its one hash.
    const values = await this.connection.run(() =>
      this.connection.client.hmget(this.keys.task(id), ...TASK_HASH_FIELDS),
    );
    const record = this.codec.decodeStored(id, values);
    if (record) return record;
    throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    this.assertOpen();
    return runMaintenancePass(this.maintenance, this, this.settings, options, this.logger);
  }

  /**
   * The last pass on this process's clock: its age is measured on Redis's
   * clock, which wrote it, so a health check whose clock is off still sees
   * how long ago the last maintenance pass ran.
   */
  async maintenanceHeartbeat(): Promise<Date | null> {
    this.assertOpen();
    const { nowMs, maintenancePassMs } = await this.connection.run(() =>
      this.scripts.storeTime(this.keys.maintenanceHeartbeat),
    );
    return maintenancePassMs === null
      ? null
      : new Date(Date.now() - Math.max(0, nowMs - maintenancePassMs));
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.connection.run(() => this.connection.client.ping());
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connection.close();
  }

  private foundEmptyJustNow(queueKeys: AcquireQueueKeys[]): boolean {
    const at = this.foundEmptyAt.get(queueKeys);
    return at !== undefined && Date.now() - at < EMPTY_LOOK_FRESH_MS;
  }

  /** What a wait leased; once it leased anything, the last empty look is out of date. */
  private sawWork(queueKeys: AcquireQueueKeys[], leased: TaskRecord[]): TaskRecord[] {
    if (leased.length > 0) this.foundEmptyAt.delete(queueKeys);
    return leased;
  }

  /** Logs once when a pool's leases are refused (`lapsedMs` defined) and once when they resume. */
  private notePoolState(poolId: string, lapsedMs: number | null | undefined): void {
    if (poolId === '') return;
    if (lapsedMs !== undefined) {
      if (!this.lapsedPools.has(poolId)) {
        this.logger.warn(poolHeartbeatLapsed(this.alias, poolId, lapsedMs));
      }
      this.lapsedPools.set(poolId, lapsedMs);
    } else if (this.lapsedPools.delete(poolId)) {
      this.logger.log(poolHeartbeatResumed(this.alias, poolId));
    }
  }

  private notePool(poolId: string): void {
    if (this.poolHint === '') this.poolHint = poolId;
    else if (this.poolHint !== poolId) this.poolHint = ANY_POOL;
  }

  private assertOpen(): void {
    if (this.closed) throw new BackendUnavailableError(backendClosed(this.alias));
  }

  /** The error of an enqueue refused because a task with one of its ids is stored; it carries that task. */
  private alreadyExists({ id, fields }: EnqueueClash): TaskAlreadyExistsError {
    // The clash was seen with the hash's data present, so the record is there (or corrupt, which throws).
    const record = this.codec.decodeStored(id, fields) as TaskRecord;
    return new TaskAlreadyExistsError(
      taskAlreadyExists(id, this.alias, record.status),
      new TaskResult(record, this),
    );
  }

  /**
   * Waits for a wake-up token with a lease sent right behind the wait (see
   * RedisConnection.waitForWake), until something is leased, `deadline`
   * passes or `signal` aborts; [] for the last two. Null when a token came
   * but nothing rode behind the wait (a Cluster): the caller leases.
   * 'lapsed' when the lease behind the wait was refused (the caller's pool
   * stopped beating meanwhile): the caller sees to that.
   */
  private async waitThenTake(
    queues: readonly string[],
    queueKeys: AcquireQueueKeys[],
    call: TakeCall,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<TaskRecord[] | null | 'lapsed'> {
    const wakeKeys = queueKeys.map((keys) => keys.wakeKey);
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      const wake = await this.connection.waitForWake(wakeKeys, remaining, signal, (blocker) =>
        this.take(queues, queueKeys, call, this.scriptsOn(blocker)),
      );
      const records = wake.followed?.records ?? null;
      if (wake.outcome === 'aborted') {
        // Leased as the wait was ended: the caller is stopping, so they go back in their place.
        if (records?.length) await this.giveBack(records);
        if (wake.tokenMayBeLost && !this.closed) await this.passOnWakeUps(queueKeys);
        return [];
      }
      if (records?.length) return records;
      if (wake.followed?.poolLapsed) return 'lapsed';
      if (wake.outcome === 'token' && wake.followed === undefined) return null;
      // A timed-out slice, or a token whose tasks another consumer took first: wait on.
    }
  }

  /** Gives back tasks leased by a wait that was aborted (they never started); what fails here the reaper frees later. */
  private async giveBack(records: readonly TaskRecord[]): Promise<void> {
    try {
      await this.unlease(records);
    } catch (error) {
      this.logger.warn(leasesLeftToReaper(this.alias, records.length, error));
    }
  }

  /** The scripts defined on a blocking connection, for a call sent behind its wait. */
  private scriptsOn(blocker: RedisClient): RedisScripts {
    let scripts = this.blockerScripts.get(blocker);
    if (!scripts) {
      scripts = new RedisScripts(blocker);
      this.blockerScripts.set(blocker, scripts);
    }
    return scripts;
  }

  /**
   * One round trip: stores what finished, leases, decodes, and fails what
   * cannot be read. `records` is null when every queue was empty or the
   * caller's pool may lease nothing (`poolLapsed`). `via` sends it on a
   * blocking connection behind its wait.
   */
  private async take(
    queues: readonly string[],
    queueKeys: AcquireQueueKeys[],
    call: TakeCall,
    via?: RedisScripts,
  ): Promise<Taken> {
    const acquiring = (scripts: RedisScripts) =>
      scripts.acquire(
        { poolTasksKey: this.keys.poolTasks(call.poolId), poolsKey: this.keys.pools },
        queueKeys,
        {
          sentBehindWait: via !== undefined,
          leaseTtlMs: this.settings.leaseTtl,
          max: call.max,
          workerJson: call.workerJson,
          runningStatus: TaskResultStatus.RUNNING,
          poolId: call.poolId,
        },
        storeSettings(this.keys, this.settings.retention.longestMaxAgeMs, this.poolHint),
        call.finished,
      );
    const { stored, leased, poolLapsed } = via
      ? await acquiring(via)
      : await this.connection.run(() => acquiring(this.scripts));
    if (call.max > 0) this.notePoolState(call.poolId, poolLapsed?.lapsedMs);
    if (poolLapsed) return { stored, records: null, poolLapsed: true };
    if (leased === null) return { stored, records: null };
    const now = leased.nowMs;
    const queue = queues[leased.queueIndex];
    const records: TaskRecord[] = [];
    let unreadable: TaskRecord[] | undefined;
    for (const raw of leased.tasks) {
      try {
        records.push(this.leased(raw, now));
      } catch (error) {
        if (!(error instanceof CorruptTaskDataError)) throw error;
        this.logger.warn(error.message);
        (unreadable ??= []).push(
          this.codec.unreadable(
            raw.id,
            queue,
            new Date(now),
            [call.workerId],
            errorToRecord(error),
          ),
        );
      }
    }
    if (unreadable) await this.acknowledge(unreadable);
    return { stored, records };
  }

  /**
   * Finished records grouped by queue and final status (two arguments per
   * record in the script); `order[k]` is the index in `records` of the k-th
   * record across the groups. Throws InvalidTaskError for an unfinished record.
   */
  private finishedGroups(records: readonly TaskRecord[]): {
    groups: AcknowledgeGroup[];
    order: number[];
  } {
    const groups: AcknowledgeGroup[] = [];
    const indexes: number[][] = [];
    // Per queue, the index in `groups` of its successful and its failed group (-1: none yet).
    const byQueue = new Map<string, [number, number]>();
    records.forEach((record, index) => {
      if (!FINISHED_STATUSES.has(record.status)) {
        throw new InvalidTaskError(acknowledgeUnfinished(record.id, record.status));
      }
      const queue = this.checkQueue(record);
      const segment = record.status === TaskResultStatus.SUCCESSFUL ? 0 : 1;
      let ofQueue = byQueue.get(queue);
      if (!ofQueue) {
        ofQueue = [-1, -1];
        byQueue.set(queue, ofQueue);
      }
      if (ofQueue[segment] < 0) {
        ofQueue[segment] = groups.length;
        groups.push({
          runningKey: this.keys.running(queue),
          historyKey: this.keys.history(queue, segment === 0 ? 'successful' : 'failed'),
          ids: [],
          json: [],
        });
        indexes.push([]);
      }
      const group = groups[ofQueue[segment]];
      group.ids.push(record.id);
      group.json.push(this.codec.encodeFinished(record));
      indexes[ofQueue[segment]].push(index);
    });
    return { groups, order: indexes.flat() };
  }

  /** Store outcomes in the order of `records`, from the script's order across the groups. */
  private outcomes(
    records: readonly TaskRecord[],
    order: readonly number[],
    stored: readonly StoreReply[],
  ): AcknowledgeOutcome[] {
    const outcomes = new Array<AcknowledgeOutcome>(records.length);
    order.forEach((index, k) => {
      if (stored[k] === StoreReply.Stored) {
        outcomes[index] = 'acknowledged';
        return;
      }
      if (stored[k] === StoreReply.AlreadyStored) {
        outcomes[index] = 'already-stored';
        return;
      }
      outcomes[index] = 'stale';
      this.logger.debug(
        `acknowledge of task ${records[index].id} was stale: it is no longer leased (reaped or recovered)`,
      );
    });
    return outcomes;
  }

  /**
   * After an aborted wait: the abort may have swallowed a wake-up token meant
   * for work that is ready, so every queue of the wait that has ready tasks
   * gets one token back. Best effort (shutdown path): a failure is logged.
   */
  private async passOnWakeUps(queueKeys: readonly AcquireQueueKeys[]): Promise<void> {
    try {
      const { client } = this.connection;
      const sizes = await Promise.all(queueKeys.map((keys) => client.zcard(keys.queueKey)));
      await Promise.all(
        queueKeys.filter((_, q) => sizes[q] > 0).map((keys) => client.lpush(keys.wakeKey, '1')),
      );
    } catch (error) {
      this.logger.debug(`could not pass wake-ups on after an aborted wait: ${String(error)}`);
    }
  }

  private leased(raw: AcquiredRaw, now: number): TaskRecord {
    return this.codec.decodeLive(raw.id, raw.data, {
      status: TaskResultStatus.RUNNING,
      startedAt: String(raw.startedAtMs),
      lastAttemptedAt: String(now),
      workers: raw.workersJson,
    });
  }

  private acquireKeys(queues: readonly string[]): AcquireQueueKeys[] {
    const cacheKey = queues.join(' ');
    let keys = this.acquireKeyCache.get(cacheKey);
    if (!keys) {
      keys = queues.map((queue) => {
        this.checkQueueName(queue);
        return {
          queueKey: this.keys.queue(queue),
          runningKey: this.keys.running(queue),
          wakeKey: this.keys.wake(queue),
        };
      });
      this.acquireKeyCache.set(cacheKey, keys);
    }
    return keys;
  }

  /** `since` (Redis's clock): the oldest history score a finished segment shows. */
  private async segmentIds(
    queue: string,
    segment: QueueSegment,
    offset: number,
    count: number,
    since: number,
  ): Promise<string[]> {
    const { client } = this.connection;
    switch (segment) {
      case 'ready':
        return client.zrange(this.keys.queue(queue), offset, offset + count - 1);
      case 'running':
        return client.zrange(this.keys.running(queue), offset, offset + count - 1);
      case 'deferred':
        return client.zrange(this.keys.deferred(queue), offset, offset + count - 1);
      case 'successful':
      case 'failed':
        // Newest first, and only within resultTtl (trimming may lag a maintenance interval).
        return client.zrevrangebyscore(
          this.keys.history(queue, segment),
          '+inf',
          since,
          'LIMIT',
          offset,
          count,
        );
    }
  }

  /** The records of ids in one segment; ids whose data expired or cannot be read are skipped. */
  private async readMany(ids: readonly string[], segment: QueueSegment): Promise<TaskRecord[]> {
    if (ids.length === 0) return [];
    const finished = segment === 'successful' || segment === 'failed';
    const pipeline = this.connection.client.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.task(id), ...TASK_HASH_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    const records: TaskRecord[] = [];
    ids.forEach((id, i) => {
      const [error, values] = replies[i] ?? [null, null];
      if (error) return;
      try {
        const record = this.codec.decodeStored(id, values as (string | null)[]);
        // Listing and reading are two steps: a task listed live may have finished since.
        if (record && FINISHED_STATUSES.has(record.status) === finished) records.push(record);
      } catch (readError) {
        this.logger.debug(`peek skipped task ${id}: ${String(readError)}`);
      }
    });
    return records;
  }

  private checkQueue(record: TaskRecord): string {
    const { queue } = record.task;
    if (!this.queueSet.has(queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, queue, this.alias, this.queues),
      );
    }
    return queue;
  }

  private checkQueueName(queue: string): void {
    if (!this.queueSet.has(queue)) {
      throw new InvalidBackendConfigError(
        invalidBackendOption(this.alias, 'queues', `does not include the queue "${queue}"`),
      );
    }
  }
}
