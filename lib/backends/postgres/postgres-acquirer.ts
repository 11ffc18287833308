import type { Logger } from '@nestjs/common';
import type { AcknowledgeOutcome, AcquireOptions } from '../../core/ports/lease-store.port';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { LeaseOutcome, PostgresLeaseCall } from './postgres-lease-call';
import type { PostgresListener } from './postgres-listener';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresQueueLimits } from './postgres-queue-limits';
import type { PostgresRows } from './postgres-rows';
import type { PostgresTaskStatements, TaskRow } from './postgres-task-statements';
import { PostgresWaiter } from './postgres-waiter';

/**
 * Longest an idle acquire waits without a wake-up before it looks again:
 * a safety net for a notification lost with the listening connection.
 */
export const SAFETY_POLL_MS = 5000;

/**
 * How a PostgresBackend leases ready tasks, and how its idle consumers wait
 * for them: on the alias's work channel (LISTEN), which every step that
 * makes a task ready notifies with its COMMIT, so an idle consumer costs no
 * query until there is work. Rows are taken FOR UPDATE SKIP LOCKED: two
 * leases never wait for each other, nor take the same task.
 *
 * @internal
 */
export class PostgresAcquirer {
  private readonly waiter = new PostgresWaiter();
  private listening = false;
  private closed = false;

  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresTaskStatements,
    private readonly rows: PostgresRows,
    private readonly queueState: PostgresQueueLimits,
    private readonly notices: PostgresNotices,
    private readonly listener: PostgresListener,
    private readonly call: PostgresLeaseCall,
    private readonly rules: StoreRules,
    private readonly logger: Logger,
  ) {}

  /** Leases up to `max` tasks, waiting for work until `timeoutMs`, an abort or close. */
  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const { workerId, signal } = options;
    const max = maxOf(options);
    const deadline = Date.now() + Math.max(0, options.timeoutMs);
    for (;;) {
      if (this.closed || signal?.aborted) return [];
      const waiting = deadline - Date.now() > 0;
      // LISTEN before the try: a task made ready after it is notified, never missed.
      if (waiting) await this.listenForWork();
      if (this.closed) return [];
      const since = this.waiter.generation(queues);
      const taken = await this.leaseNow([], queues, workerId, max, options.poolId ?? null);
      if (taken.acquired.length > 0) return taken.acquired;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      // A full rate window admits again at a known time: no need to wait past it.
      const limitWaitMs = taken.waitMs > 0 ? taken.waitMs : Infinity;
      await this.waiter.wait(
        Math.min(remaining, SAFETY_POLL_MS, limitWaitMs),
        queues,
        since,
        signal,
      );
    }
  }

  /**
   * Stores `finished`, then leases up to `max` (none when 0) without waiting,
   * in one round trip (threadmill_lease); in a transaction of TypeScript
   * steps instead when a ready task's data is no JSON Postgres reads.
   */
  async leaseNow(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | null,
  ): Promise<LeaseOutcome> {
    const leased = await this.call.lease(finished, queues, workerId, max, poolId);
    if (!leased.fellBack) return leased;
    const taken = await this.connection.transaction((tx) =>
      this.take(tx, queues, workerId, max, this.connection.clock.now(), poolId),
    );
    return { acknowledged: leased.acknowledged, ...taken };
  }

  /**
   * Stores `finished` alone, in one round trip: threadmill_lease with max 0
   * leases nothing (no worker, no queue), so it never falls back.
   */
  async store(finished: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    const stored = await this.call.lease(finished, [], '', 0, null);
    return stored.acknowledged;
  }

  /** Idle consumers of this process of `queues` (of every queue when none are named) look again now. */
  workAdded(queues?: readonly string[]): void {
    this.waiter.notify(queues);
  }

  /** Ends every idle wait, and every acquire at its next look. */
  close(): void {
    this.closed = true;
    this.waiter.close();
  }

  /**
   * Inside a transaction: lease up to `max` of the first queue that is not
   * paused, whose limits leave room (at most that room) and has ready tasks;
   * unreadable rows are failed, never returned. The same steps as
   * threadmill_lease, taken one statement at a time in TypeScript.
   */
  async take(
    tx: PostgresTx,
    queues: readonly string[],
    workerId: string,
    max: number,
    now: number,
    poolId: string | null,
  ): Promise<{ acquired: TaskRecord[]; waitMs: number }> {
    let waitMs = 0;
    for (const queue of queues) {
      const { limits } = await this.queueState.enter(tx, queue);
      let most = max;
      let at = now;
      if (limits) {
        const entered = await this.queueState.room(tx, queue, limits);
        const { room } = entered;
        at = entered.at;
        if (room.room === 0) {
          if (room.waitMs > 0) waitMs = Math.min(waitMs || Infinity, room.waitMs);
          continue;
        }
        most = Math.min(max, room.room);
      }
      // A limited queue's starts are dated on the clock its window is kept on.
      const taken = await this.takeFrom(tx, queue, workerId, most, at, poolId);
      if (limits) await this.queueState.started(tx, queue, limits, taken.length, at);
      if (taken.length > 0) {
        this.notices.live(tx, 'started', taken);
        return { acquired: taken, waitMs: 0 };
      }
    }
    return { acquired: [], waitMs };
  }

  private async takeFrom(
    tx: PostgresTx,
    queue: string,
    workerId: string,
    most: number,
    now: number,
    poolId: string | null,
  ): Promise<TaskRecord[]> {
    const taken: TaskRecord[] = [];
    // Unreadable rows are failed and leave the queue, so each round takes what is left to take.
    while (taken.length < most) {
      const rows = await tx.query<TaskRow>(this.sql.selectReady, [
        this.alias,
        queue,
        most - taken.length,
      ]);
      if (rows.length === 0) break;
      const leased: TaskRecord[] = [];
      for (const row of rows) {
        const stored = await this.rows.read(tx, row, now);
        if (stored) leased.push(this.rules.leased(stored, workerId, new Date(now)));
      }
      if (leased.length > 0) {
        await tx.query(this.sql.markRunning, [
          this.alias,
          now + this.settings.leaseTtl,
          poolId,
          leased.map((record) => record.id),
          leased.map((record) => record.workerIds.length),
          leased.map(serializeRecord),
        ]);
      }
      taken.push(...leased);
    }
    return taken;
  }

  /** LISTENs on the work channel; a failure leaves the wait to its safety poll. */
  private async listenForWork(): Promise<void> {
    if (this.listening) return;
    try {
      // The payload is the queue that got work.
      await this.listener.listen(this.notices.channel('work'), (queue) =>
        this.waiter.notify([queue]),
      );
      this.listening = true;
    } catch (error) {
      this.logger.warn(
        `Idle consumers of "${this.alias}" poll every ${SAFETY_POLL_MS} ms until the listener ` +
          `connects: ${String(error)}`,
      );
    }
  }
}

/** The most tasks one acquire takes: `max`, a whole number of at least 1 (default 1). */
export function maxOf(options: AcquireOptions): number {
  const requested = options.max ?? 1;
  return Number.isFinite(requested) ? Math.max(1, Math.trunc(requested)) : 1;
}
