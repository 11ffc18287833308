import type { LoggerService } from '@nestjs/common';

import { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import { isRetry, partOutcomes } from '../../core/retry-policy';
import type { AcknowledgeOutcome, RetryOutcome } from '../../core/ports/lease-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { acknowledgeFailed, staleAcknowledge } from '../worker.messages';
import type { ChangeSignal } from '../../utils/change-signal.util';
import { sleep } from '../../utils/sleep.util';

/** Longest pause between two tries of a refused store (it doubles from retryDelayMs up to this). */
const STORE_RETRY_MAX_MS = 30_000;
/**
 * Tries of a held outcome a lease has room for, at least: the pause never
 * passes this fraction of the lease, so a store that takes calls again gets
 * the outcome before the lease runs out and the attempt is failed for it.
 */
const TRIES_PER_LEASE = 4;

export interface OutcomeQueueDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** The first pause after a refused store. */
  readonly retryDelayMs: number;
  /** Aborted by an urgent stop: the only thing that gives up on a refused store. */
  readonly urgent: AbortSignal;
  /** Notified when a batch settles or the store takes calls again. */
  readonly changes: ChangeSignal;
  /** A batch left the child's hands: settled, or given up on by an urgent stop. */
  readonly settled: (batch: readonly TaskRecord[]) => void;
  /** Counts each refused store (the metrics' store errors), when metrics are on. */
  readonly metrics?: { storeFailed(): void };
  /**
   * Told of a damaged store: its outcomes are then dropped, not tried again
   * (no retry can help), and the child stops. Omitted, it is retried as any refusal.
   */
  readonly storeCorrupt?: (error: StoreCorruptError) => void;
  /**
   * Hold outcomes for the next lease call while one that never waits is
   * under way (see rideWith); on with `--prefetch`, where a task finishes
   * while the call for its successor is out.
   */
  readonly waitForRides?: boolean;
}

/**
 * The outcomes of a child's finished attempts until the store has them:
 * acknowledged (SUCCESSFUL, FAILED or CANCELLED) or sent back for another attempt
 * (retried). Attempts that finish in one turn of the event loop share one
 * call; a busy child hands its acknowledgements to the next acquire instead
 * (acknowledgeAndAcquire, one round trip for both). A refused store (a full
 * Redis, an outage) is tried again, with a pause that doubles up to
 * STORE_RETRY_MAX_MS (and a quarter of the lease), for as long as it takes:
 * the outcome exists only here, and the task stays RUNNING meanwhile, never
 * lost. A damaged store (StoreCorruptError) is the exception: no retry mends
 * it, so the child is told (storeCorrupt) and stops.
 *
 * @internal
 */
export class OutcomeQueue {
  private readonly finished: TaskRecord[] = [];
  private flushing: Promise<void> | null = null;
  /** Store calls refused and not yet through: while any is, the child leases nothing new. */
  private refusedStores = 0;
  /** The latest lease call under way that never waits (settled or not, it never rejects). */
  private ride: Promise<void> | null = null;

  private readonly longestPauseMs: number;

  constructor(private readonly deps: OutcomeQueueDeps) {
    const leaseShare = Math.floor(deps.backend.leaseTtlMs / TRIES_PER_LEASE);
    this.longestPauseMs = Math.max(deps.retryDelayMs, Math.min(STORE_RETRY_MAX_MS, leaseShare));
  }

  /** Whether a store is being refused (the child then takes no new task). */
  get refused(): boolean {
    return this.refusedStores > 0;
  }

  /** Nothing waits to be stored and no store is under way. */
  get empty(): boolean {
    return this.finished.length === 0 && this.flushing === null;
  }

  /** The store under way, if any. */
  get flush(): Promise<void> | null {
    return this.flushing;
  }

  /** A finished attempt: SUCCESSFUL, FAILED, or READY again as nextAttempt made it. */
  add(record: TaskRecord): void {
    this.finished.push(record);
    this.scheduleFlush();
  }

  /**
   * The outcomes the next acquire can store in the same round trip: all but
   * failed attempts going back for a retry, which the flush sends.
   */
  takeForAcquire(): TaskRecord[] {
    if (this.finished.length === 0) return [];
    const done = this.finished.filter((record) => !isRetry(record));
    if (done.length === this.finished.length) this.finished.length = 0;
    else this.finished.splice(0, this.finished.length, ...this.finished.filter(isRetry));
    return done;
  }

  /** An acquire stored `done` with its lease; what the store said of each. */
  storedWithAcquire(done: readonly TaskRecord[], outcomes: readonly AcknowledgeOutcome[]): void {
    this.report(done, outcomes);
    this.deps.settled(done);
  }

  /**
   * A lease call that never waits (it carries outcomes, or asks with no
   * timeout) is under way: the call after it, issued as soon as it returns,
   * may carry what finishes meanwhile, one round trip for both, instead of
   * a call of its own. Ignored unless `waitForRides`.
   */
  rideWith(call: Promise<unknown>): void {
    if (!this.deps.waitForRides) return;
    const ride: Promise<void> = call
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (this.ride === ride) this.ride = null;
      });
    this.ride = ride;
  }

  /** An acquire carrying `done` failed: stored or not is unknown, so they are stored again (a repeat changes nothing). */
  acquireFailed(done: readonly TaskRecord[]): void {
    this.finished.unshift(...done);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = nextTurn()
      .then(() => this.afterRides())
      .then(() => this.flushAll())
      .finally(() => {
        this.flushing = null;
        // An attempt may have finished after the last batch was taken.
        if (this.finished.length > 0) this.scheduleFlush();
        this.deps.changes.notify();
      });
  }

  /** Waits out the rides under way; the outcomes left then go in a call of their own. */
  private async afterRides(): Promise<void> {
    while (this.ride !== null) {
      await this.ride;
      // The lane the ride returned to issues its next call in this turn, taking what waits.
      await nextTurn();
    }
  }

  private async flushAll(): Promise<void> {
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0);
      const { final: done, retries } = partOutcomes(batch);
      await Promise.all([
        done.length > 0 ? this.store(done, 'acknowledge') : undefined,
        retries.length > 0 ? this.store(retries, 'retry') : undefined,
      ]);
      this.deps.settled(batch);
    }
  }

  /** Acknowledges or retries one batch, tried again while refused (only an urgent stop gives up). */
  private async store(batch: readonly TaskRecord[], how: 'acknowledge' | 'retry'): Promise<void> {
    const { backend, logger, urgent, retryDelayMs } = this.deps;
    for (let attempt = 1; ; attempt++) {
      try {
        const outcomes =
          how === 'retry'
            ? await backend.leases.retry(batch)
            : await backend.leases.acknowledge(batch);
        this.report(batch, outcomes);
        if (attempt > 1) {
          this.refusedStores--;
          this.deps.changes.notify();
        }
        return;
      } catch (error) {
        this.deps.metrics?.storeFailed();
        if (error instanceof StoreCorruptError && this.deps.storeCorrupt) {
          if (attempt > 1) this.refusedStores--;
          this.deps.storeCorrupt(error);
          return;
        }
        if (attempt === 1) this.refusedStores++;
        const pauseMs = Math.min(retryDelayMs * 2 ** (attempt - 1), this.longestPauseMs);
        logger.error(
          acknowledgeFailed(batch.length, attempt, error, urgent.aborted ? null : pauseMs),
        );
        if (urgent.aborted) {
          this.refusedStores--;
          return;
        }
        // A graceful stop still waits for these outcomes; only an urgent one cuts the pause.
        await sleep(pauseMs, urgent);
      }
    }
  }

  /** Says what a store changed nothing for. */
  private report(
    batch: readonly TaskRecord[],
    outcomes: readonly (AcknowledgeOutcome | RetryOutcome)[],
  ): void {
    outcomes.forEach((outcome, i) => {
      if (outcome === 'stale') this.deps.logger.warn(staleAcknowledge(batch[i].id, outcome));
      else if (outcome === 'already-stored') {
        this.deps.logger.log(staleAcknowledge(batch[i].id, outcome));
      }
    });
  }
}

/** Resolves in the next turn of the event loop, after the I/O and microtasks of this one. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
