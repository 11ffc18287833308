import type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
} from '../../core/ports/lease-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { sleep } from '../../utils/sleep.util';
import type { RedisCallGuard } from './redis-call-guard';
import type { RedisIdleWait } from './redis-idle-wait';
import type { RedisLeaseTaker, TakeCall, Taken } from './redis-lease-taker';
import { MAX_PER_CALL } from './redis-maintenance';
import type { RedisPoolHeartbeat } from './redis-pool-heartbeat';
import type { RedisQueueLimits } from './redis-queue-limits';
import type { AcquireQueueKeys } from './redis-script-types';
import type { RedisAcknowledger } from './redis-acknowledger';

/** How long a look that found every queue empty spares the next waiting call its own look. */
const EMPTY_LOOK_FRESH_MS = 1000;
/** How often a waiting acquire under a pool whose heartbeat lapsed looks whether it beat again. */
const POOL_BEAT_RECHECK_MS = 250;

/**
 * The acquire path of one RedisBackend alias: stores what finished and
 * leases the next tasks in one round trip, waits idle when every queue is
 * empty, and looks again while the caller's pool heartbeat has lapsed.
 *
 * @internal
 */
export class RedisAcquirer {
  /** When the latest look at each list of queues (by RedisLeaseTaker.acquireKeys' array) found them all empty. */
  private readonly foundEmptyAt = new WeakMap<AcquireQueueKeys[], number>();

  constructor(
    private readonly taker: RedisLeaseTaker,
    private readonly idleWait: RedisIdleWait,
    private readonly acknowledger: RedisAcknowledger,
    private readonly pools: RedisPoolHeartbeat,
    private readonly guard: RedisCallGuard,
    private readonly limits: RedisQueueLimits,
  ) {}

  /**
   * Throws PoolHeartbeatLapsedError when `options.poolId`'s heartbeat had
   * lapsed by Redis's clock and did not come back within the timeout: an
   * empty result would read as "no work", and a draining worker would stop.
   */
  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const { acquired, poolLapsed } = await this.acknowledgeAndAcquire([], queues, options);
    if (poolLapsed) throw this.pools.lapsedError(options.poolId ?? '');
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
    this.guard.assertOpen();
    // Nothing to consume, nothing to wait on (BLPOP needs at least one key).
    if (queues.length === 0) {
      return { acknowledged: await this.acknowledger.acknowledge(finished), acquired: [] };
    }
    // The configured limits are in the store before this instance's first lease.
    const seeding = this.limits.ready();
    if (seeding) await seeding;
    const { groups, order } = this.acknowledger.finishedGroups(finished);
    const { workerId, signal } = options;
    const poolId = options.poolId ?? '';
    if (poolId !== '') this.pools.note(poolId);
    const max = Math.min(Math.max(Math.floor(options.max ?? 1), 1), MAX_PER_CALL);
    const queueKeys = this.taker.acquireKeys(queues);
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
      const woken = await this.idleWait.waitThenTake(queues, queueKeys, call, deadline, signal);
      if (woken !== null && woken !== 'lapsed') return result(this.sawWork(queueKeys, woken));
    }
    for (;;) {
      // Closing the backend ends a wait like an abort: the caller is shutting down.
      const stopping = signal?.aborted === true || this.guard.closed;
      if (stopping && storing.length === 0) return result([]);
      let taken: Taken;
      try {
        // Stopping: what finished is still stored, nothing new is leased.
        taken = await this.taker.take(queues, queueKeys, {
          ...call,
          max: stopping ? 0 : max,
          finished: storing,
        });
      } catch (error) {
        if (this.guard.closed && storing.length === 0) return result([]);
        throw error;
      }
      if (!stopping) {
        // A full limited queue is not an empty one: its next look must not be skipped.
        if (taken.records === null && !taken.poolLapsed && !taken.limitWaitMs) {
          this.foundEmptyAt.set(queueKeys, Date.now());
        } else {
          this.foundEmptyAt.delete(queueKeys);
        }
      }
      if (storing.length > 0) {
        acknowledged = this.acknowledger.outcomes(finished, order, taken.stored);
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
        // (enqueue, promote, release, a full acquire) pushes one. So no second look,
        // but when a limited queue was full: no token says when its limit admits again,
        // so the wait ends by then and the loop looks again.
        const until = taken.limitWaitMs
          ? Math.min(deadline, Date.now() + taken.limitWaitMs)
          : deadline;
        const woken = await this.idleWait.waitThenTake(queues, queueKeys, call, until, signal);
        if (woken !== null && woken !== 'lapsed') {
          const lookAgain = woken.length === 0 && until < deadline && signal?.aborted !== true;
          if (!lookAgain || this.guard.closed) return result(this.sawWork(queueKeys, woken));
          continue;
        }
        // A token, and the lease is ours to make (nothing rode behind the wait), or the
        // pool lapsed while it waited: look now.
      } else if (taken.records.length > 0) {
        return result(taken.records);
      }
      // Everything taken was unreadable and has been failed: look again at once.
    }
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
}
