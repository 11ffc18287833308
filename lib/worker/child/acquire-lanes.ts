import { setImmediate as nextTurn } from 'node:timers/promises';

import type { LoggerService } from '@nestjs/common';

import { PoolHeartbeatLapsedError } from '../../core/errors/pool-heartbeat-lapsed.error';
import { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import type { AcquireOptions } from '../../core/ports/lease-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { acquireFailed } from '../worker.messages';
import type { ChangeSignal } from '../../utils/change-signal.util';
import { sleep } from '../../utils/sleep.util';
import type { ChildExitReason } from '../worker-ipc';
import type { OrphanSearch } from './orphan-search';
import type { OutcomeQueue } from './outcome-queue';
import type { TaskSlots } from './task-slots';

/**
 * How many acquires a consumer of `threads` slots keeps out at once, each for
 * its share of the slots, so one batch runs while the next is leased.
 * Measured on a 2-core machine (bench/, no-op tasks, interleaved runs): below
 * 8 slots one acquire of all free slots is as fast as two; from 8 on, two
 * lanes beat one (at 10 slots, 38k tasks/s against 28.5k in one process);
 * from 32 on, four beat two in one process (61k against 48k tasks/s at 100
 * slots, 58k against 44k at 32, the same Redis CPU per task). A pool child
 * drained as fast with four as with two (27.3k against 27.5k tasks/s, one
 * child of 100 threads): it has no idle time for more lanes to fill. With
 * a Redis further away than loopback, more calls in flight hide more of
 * each round trip.
 */
export function acquireLanes(threads: number): number {
  if (threads < 8) return 1;
  return threads < 32 ? 2 : 4;
}

export interface AcquireLanesDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  readonly queues: readonly string[];
  readonly threads: number;
  /** Drain the queues, then end (--exit-empty): never block on an empty store. */
  readonly exitEmpty: boolean;
  /** How long one idle acquire blocks before it is re-issued. */
  readonly idleWaitMs: number;
  /** Pause after a failed acquire before the next. */
  readonly retryDelayMs: number;
  readonly poolId?: string;
  /** Counts each failed acquire (the metrics' store errors), when metrics are on. */
  readonly metrics?: { storeFailed(): void };
  /** Told of a damaged store, which stops the child (see OutcomeQueueDeps.storeCorrupt). */
  readonly storeCorrupt?: (error: StoreCorruptError) => void;
  readonly slots: TaskSlots;
  readonly outcomes: OutcomeQueue;
  readonly orphans: OrphanSearch;
  readonly changes: ChangeSignal;
  /** Aborted by any stop: ends an idle wait and the pauses. */
  readonly stopSignal: AbortSignal;
  /** The worker id of a slot (`host:pid-slot`). */
  readonly workerId: (slot: number) => string;
  /** Whether this child runs nothing (a drained store then means the lanes are done). */
  readonly idle: () => boolean;
  /**
   * Starts a leased batch in the slots reserved for it (filled first), the
   * rest waiting in prefetch places; the call's worker id is the first slot's.
   */
  readonly take: (records: readonly TaskRecord[], batchWorkerId: string, slots: number[]) => void;
  /** A call gave back slots it did not fill: a task waiting for one (prefetched) may start. */
  readonly unreserved: () => void;
}

/**
 * A child's acquire loops: `lanes` of them (acquireLanes) share the slots,
 * each asking for at most its share, so with many slots one batch runs while
 * the next is being leased. Only lane 0 blocks on an idle store; another lane
 * that finds nothing waits for a change (a task started or finished) and
 * looks again. Each acquire carries the outcomes waiting to be stored.
 *
 * @internal
 */
export class AcquireLanes {
  /**
   * Whether the last acquire filled its request, so more may be waiting: only
   * then do the lanes besides the first look, and an idle worker sends one
   * acquire per change, not one per lane.
   */
  private backlogLikely = true;
  /** Set once a lane found the store empty with nothing running (--exit-empty): the waiting lanes end too. */
  private drained = false;
  /** Acquire calls out now (one per lane at most). */
  private acquiring = 0;

  constructor(private readonly deps: AcquireLanesDeps) {}

  /** Runs every lane until the child stops, drains or runs out of budget; the reason each ended. */
  run(): Promise<ChildExitReason[]> {
    const lanes = acquireLanes(this.deps.threads);
    return Promise.all(
      // A lane that ends wakes the others, so they see what ended it.
      Array.from({ length: lanes }, (_, lane) =>
        this.loop(lane, lanes).finally(() => this.deps.changes.notify()),
      ),
    );
  }

  private async loop(lane: number, lanes: number): Promise<ChildExitReason> {
    const { slots, outcomes, orphans, changes, stopSignal } = this.deps;
    const share = Math.ceil(this.deps.threads / lanes);
    const blocking = lane === 0 && !this.deps.exitEmpty;
    let turnWaited = false;
    while (!stopSignal.aborted) {
      if (slots.remainingBudget <= 0) {
        // Another lane's call may give back what it reserved and did not use.
        if (this.acquiring === 0) return 'recycled';
        await changes.next();
        continue;
      }
      // No slot or prefetch place free, or outcomes the store refuses: those must land before anything new.
      if ((slots.freeCount === 0 && slots.placesFree === 0) || outcomes.refused) {
        await changes.next();
        continue;
      }
      if (lane > 0 && !this.backlogLikely) {
        if (this.drained) return 'drained';
        await changes.next();
        continue;
      }
      const search = orphans.underWay;
      if (search) {
        // No acquire may start while it runs: the lease it makes would look like an orphan.
        await search;
        continue;
      }
      if (orphans.due) {
        // The search takes every lease of ours it does not hold as an orphan: none may be in flight.
        if (this.acquiring > 0) {
          await changes.next();
          continue;
        }
        if (!(await orphans.run())) {
          await sleep(this.deps.retryDelayMs, stopSignal);
          continue;
        }
      }
      if (!turnWaited && slots.placesFree > 0 && !this.deps.idle()) {
        // Prefetching while tasks run: those that end within this turn of the event loop (quick
        // ones) ride with this call and their slots are asked for in it too, so at one slot with
        // one place a call carries two tasks, not one. Their outcomes wait for it (a ride), not
        // for a call of their own. The checks above run again after the wait.
        turnWaited = true;
        const turn = nextTurn();
        outcomes.rideWith(turn);
        await turn;
        continue;
      }
      turnWaited = false;
      const records = await this.acquire(slots.reserve(share), slots.reservePlaces(), blocking);
      // Not leased: the call failed, or the pool's heartbeat lapsed (it beats again on its next pass).
      if (records === null) {
        await sleep(this.deps.retryDelayMs, stopSignal);
        continue;
      }
      if (records.length === 0) {
        if (this.deps.exitEmpty && this.deps.idle() && this.acquiring === 0) {
          this.drained = true;
          return 'drained';
        }
        // Running tasks may enqueue more (--exit-empty), or this lane does not block: look again
        // on a change. Not after a stop: its one notify may have come while this call was out
        // (another lane may even have ended already), and no change would follow.
        if (!blocking && !stopSignal.aborted) await changes.next();
      }
    }
    return 'stopped';
  }

  /**
   * One acquire for `slots` and `places` prefetch places (reserved while the
   * call is out), carrying the outcomes waiting to be stored; starts what it
   * leased. Null when nothing
   * could be leased: the call failed, or the store refused to lease under a
   * pool whose heartbeat lapsed (whose tasks another pool may be recovering).
   */
  private async acquire(
    slots: number[],
    places: number,
    blocking: boolean,
  ): Promise<TaskRecord[] | null> {
    const { backend, outcomes, queues } = this.deps;
    // A call for prefetch places only names slot 1: the slot that starts a task stamps its own id.
    const workerId = this.deps.workerId(slots[0] ?? 1);
    const options: AcquireOptions = {
      workerId,
      max: slots.length + places,
      // --exit-empty must see "empty" at once; otherwise block, which costs Redis nothing.
      timeoutMs: blocking ? this.deps.idleWaitMs : 0,
      signal: this.deps.stopSignal,
      poolId: this.deps.poolId,
    };
    const done = outcomes.takeForAcquire();
    let records: TaskRecord[] | null = null;
    this.acquiring++;
    try {
      if (done.length > 0) {
        const call = backend.leases.acknowledgeAndAcquire(done, queues, options);
        outcomes.rideWith(call);
        const result = await call;
        outcomes.storedWithAcquire(done, result.acknowledged);
        records = result.poolLapsed ? null : result.acquired;
      } else {
        const call = backend.leases.acquire(queues, options);
        if (options.timeoutMs === 0) outcomes.rideWith(call);
        records = await call;
      }
    } catch (error) {
      if (error instanceof StoreCorruptError && this.deps.storeCorrupt) {
        // No retry mends it: the child stops (and drops what this call carried, as the queue does).
        this.deps.metrics?.storeFailed();
        this.deps.storeCorrupt(error);
      } else if (!(error instanceof PoolHeartbeatLapsedError)) {
        // A lapsed pool leased nothing (and the backend said so once): no orphan to look for.
        this.deps.logger.error(acquireFailed(backend.alias, error));
        this.deps.metrics?.storeFailed();
        this.deps.orphans.acquireFailed();
      }
      if (done.length > 0) outcomes.acquireFailed(done);
    } finally {
      this.acquiring--;
    }
    if (this.deps.slots.unreserve(slots, records?.length ?? 0, places)) {
      this.deps.unreserved();
      this.deps.changes.notify();
    }
    if (records !== null) {
      this.backlogLikely = records.length === slots.length + places;
      if (records.length > 0) this.deps.take(records, workerId, slots);
    }
    return records;
  }
}
