import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { errorToRecord } from '../../core/task-serializer';
import type { RedisAliasContext } from './redis-alias-context';
import type { RedisPoolHeartbeat } from './redis-pool-heartbeat';
import {
  type AcknowledgeGroup,
  type AcquiredRaw,
  type AcquireQueueKeys,
  storeSettings,
  type StoreReply,
} from './redis-script-types';
import type { RedisClient } from './redis-clients';
import { RedisScripts } from './redis-scripts';
import type { RedisAcknowledger } from './redis-acknowledger';

/** What one acquire round trip did (see take). */
export interface Taken {
  stored: StoreReply[];
  /** Null when every queue was empty, or when the pool may lease nothing. */
  records: TaskRecord[] | null;
  poolLapsed?: boolean;
  /** Nothing leased and a limited queue was full: ms until it may admit a start. */
  limitWaitMs?: number;
}

/** A lease and the outcomes stored with it, for ReplicasBehindError's message. */
function leaseWhat(leased: number, finishedGroups: number): string {
  const lease = `a lease of ${leased} task(s)`;
  return finishedGroups > 0 ? `${lease} and the outcomes stored with it` : lease;
}

/** What one acquire script call is asked to do. */
export interface TakeCall {
  max: number;
  workerId: string;
  workerJson: string;
  poolId: string;
  finished: readonly AcknowledgeGroup[];
}

/**
 * One acquire round trip of a RedisBackend alias: stores what finished,
 * leases, decodes what it leased and fails what cannot be read. Sent on the
 * shared connection, or on a blocking one right behind its wait.
 *
 * @internal
 */
export class RedisLeaseTaker {
  // Acquire keys per queue order: built once, reused by every call of a worker slot.
  private readonly acquireKeyCache = new Map<string, AcquireQueueKeys[]>();
  private readonly blockerScripts = new WeakMap<RedisClient, RedisScripts>();

  constructor(
    private readonly context: RedisAliasContext,
    private readonly pools: RedisPoolHeartbeat,
    private readonly acknowledger: RedisAcknowledger,
  ) {}

  /**
   * One round trip: stores what finished, leases, decodes, and fails what
   * cannot be read. `records` is null when every queue was empty or the
   * caller's pool may lease nothing (`poolLapsed`). `via` sends it on a
   * blocking connection behind its wait. With waitForReplicas, a call that
   * leased or stored anything is answered once the replicas have it.
   */
  async take(
    queues: readonly string[],
    queueKeys: AcquireQueueKeys[],
    call: TakeCall,
    via?: RedisClient,
  ): Promise<Taken> {
    const acquiring = (scripts: RedisScripts) =>
      scripts.acquire(
        {
          poolTasksKey: this.context.keys.poolTasks(call.poolId),
          poolsKey: this.context.keys.pools,
          pausedKey: this.context.keys.paused,
          limitsKey: this.context.keys.limits,
        },
        queueKeys,
        {
          sentBehindWait: via !== undefined,
          leaseTtlMs: this.context.settings.leaseTtl,
          max: call.max,
          workerJson: call.workerJson,
          runningStatus: TaskResultStatus.RUNNING,
          poolId: call.poolId,
          queueNames: queues.join(' '),
          liveChannel: this.context.keys.liveChannel,
        },
        storeSettings(
          this.context.keys,
          this.context.settings.retention.longestMaxAgeMs,
          this.pools.hint,
        ),
        call.finished,
      );
    // A lease the replicas lack would be lost in a failover and its task run
    // again, so a lease (or an outcome) waits for them like an enqueue. When
    // they fall behind the call fails: the worker keeps its outcomes, and
    // gives back what was leased to it (its search for orphaned leases).
    const { replicas } = this.context;
    const confirmedOn = async (client: RedisClient, scripts: RedisScripts) => {
      const reply = await acquiring(scripts);
      const leased = reply.leased?.tasks.length ?? 0;
      if (leased > 0 || call.finished.length > 0) {
        await replicas.confirm(client, () => leaseWhat(leased, call.finished.length));
      }
      return reply;
    };
    const { client } = this.context.connection;
    const send = (on: RedisClient, scripts: RedisScripts) =>
      replicas.on ? confirmedOn(on, scripts) : acquiring(scripts);
    const { stored, leased, poolLapsed, limitWaitMs } = via
      ? await send(via, this.scriptsOn(via))
      : await this.context.connection.run(() => send(client, this.context.scripts));
    if (call.max > 0) this.pools.noteLeaseState(call.poolId, poolLapsed?.lapsedMs);
    if (poolLapsed) return { stored, records: null, poolLapsed: true };
    if (leased === null)
      return limitWaitMs ? { stored, records: null, limitWaitMs } : { stored, records: null };
    const now = leased.nowMs;
    const queue = queues[leased.queueIndex];
    const records: TaskRecord[] = [];
    let unreadable: TaskRecord[] | undefined;
    for (const raw of leased.tasks) {
      try {
        records.push(this.leased(raw, now));
      } catch (error) {
        if (!(error instanceof CorruptTaskDataError)) throw error;
        this.context.logger.warn(error.message);
        (unreadable ??= []).push(
          this.context.codec.unreadable(
            raw.id,
            queue,
            new Date(now),
            [call.workerId],
            errorToRecord(error),
          ),
        );
      }
    }
    if (unreadable) await this.acknowledger.acknowledge(unreadable);
    return { stored, records };
  }

  /** The acquire keys of `queues`, in their order; throws when the alias lacks one of them. */
  acquireKeys(queues: readonly string[]): AcquireQueueKeys[] {
    const cacheKey = queues.join(' ');
    let keys = this.acquireKeyCache.get(cacheKey);
    if (!keys) {
      keys = queues.map((queue) => {
        this.context.guard.assertQueue(queue);
        return {
          queueKey: this.context.keys.queue(queue),
          runningKey: this.context.keys.running(queue),
          wakeKey: this.context.keys.wake(queue),
          rateKey: this.context.keys.rate(queue),
        };
      });
      this.acquireKeyCache.set(cacheKey, keys);
    }
    return keys;
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

  /** The task as the lease rule makes it of the task before its lease, which the script applied. */
  private leased(raw: AcquiredRaw, now: number): TaskRecord {
    const read = this.context.codec.decodeLive(raw.id, raw.data, {
      status: null,
      lastAttemptedAt: null,
      startedAt: String(raw.startedAtMs),
      workers: raw.workersJson,
      cancel: raw.cancel,
    });
    // The script appended this lease's worker id; the rule is given the task as before it.
    const workerIds = read.workerIds;
    const before = { ...read, workerIds: workerIds.slice(0, -1) };
    return this.context.rules.leased(before, workerIds[workerIds.length - 1], new Date(now));
  }
}
