import type { Transaction } from 'better-sqlite3';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { AcquireOptions } from '../../core/ports/lease-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import type { SqliteConnection } from './sqlite-connection';
import type { SqliteLiveEvents } from './sqlite-live-events';
import type { SqliteQueueLimits } from './sqlite-queue-limits';
import { LIVE_TASK_EXPIRES_AT, type SqliteRows } from './sqlite-rows';
import { SqliteWaiter } from './sqlite-waiter';

/** First idle wait of an acquire; doubled after every empty check up to maxPollInterval. */
const FIRST_POLL_MS = 2;

/** Claims up to `max` ready tasks of the first non-empty queue, inside the caller's write transaction. */
type Take = (
  queues: readonly string[],
  workerId: string,
  max: number,
  now: number,
  poolId: string | null,
) => TaskRecord[];

/**
 * How a SqliteBackend leases ready tasks, and how its idle consumers wait for
 * them. There is no blocking read in SQLite: an idle acquire is woken at once
 * by work added in this process (`workAdded`), and checks cheaply, with
 * backoff, for work committed by other processes.
 *
 * @internal
 */
export class SqliteAcquirer {
  private readonly waiter = new SqliteWaiter();
  /**
   * Per queue list, the change marker at which it was last found empty. The
   * marker combines `PRAGMA data_version` (moves when another connection
   * commits) with `localChanges` (moves when this one adds work), so an idle
   * consumer skips the query while nothing anywhere has changed.
   */
  private readonly emptyAt = new Map<string, string>();
  private localChanges = 0;
  private readonly acquireTx: Transaction<Take>;
  /** When the last take found a rate-limited queue full: ms until its window admits a start. */
  private limitWaitMs = 0;

  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    private readonly connection: SqliteConnection,
    private readonly rows: SqliteRows,
    private readonly limits: SqliteQueueLimits,
    private readonly live: SqliteLiveEvents,
    private readonly rules: StoreRules,
  ) {
    this.acquireTx = connection.db.transaction<Take>((queues, workerId, max, now, poolId) =>
      this.take(queues, workerId, max, now, poolId),
    );
  }

  /** Leases up to `max` tasks, waiting for work until `timeoutMs`, an abort or close. */
  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const { workerId, signal } = options;
    const max = maxOf(options);
    const deadline = Date.now() + Math.max(0, options.timeoutMs);
    let delay = FIRST_POLL_MS;
    for (;;) {
      if (this.connection.closed || signal?.aborted) return [];
      const taken = this.tryAcquire(queues, workerId, max, options.poolId ?? null);
      if (taken.length > 0) return taken;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      // A full rate window admits again at a known time: no need to back off past it.
      const limitWaitMs = this.limitWaitMs > 0 ? this.limitWaitMs : Infinity;
      await this.waiter.wait(Math.min(delay, remaining, limitWaitMs), signal);
      delay = Math.min(delay * 2, this.settings.maxPollInterval);
    }
  }

  /** Idle consumers in this process look again now; consumers elsewhere see data_version move. */
  workAdded(): void {
    this.localChanges++;
    this.waiter.notify();
  }

  /** Ends every idle wait, now and later. */
  close(): void {
    this.waiter.close();
  }

  /**
   * Inside a write transaction: claim up to `max` of the first non-empty
   * queue that is not paused and whose limits leave room (at most that
   * room); unreadable rows are failed, never returned.
   */
  take(
    queues: readonly string[],
    workerId: string,
    max: number,
    now: number,
    poolId: string | null,
  ): TaskRecord[] {
    const { tasks } = this.connection.sql;
    this.limitWaitMs = 0;
    for (const queue of queues) {
      const limited = this.limits.room(queue, now);
      if (limited?.room === 0) {
        if (limited.waitMs > 0) {
          this.limitWaitMs = Math.min(this.limitWaitMs || Infinity, limited.waitMs);
        }
        continue;
      }
      const most = Math.min(max, limited?.room ?? max);
      const taken: TaskRecord[] = [];
      for (;;) {
        const rows = tasks.selectReady.all(
          this.alias,
          queue,
          now,
          this.alias,
          queue,
          most - taken.length,
        );
        if (rows.length === 0) break;
        for (const row of rows) {
          const stored = this.rows.read(row, now);
          if (!stored) continue;
          const running = this.rules.leased(stored, workerId, new Date(now));
          tasks.markRunning.run(
            now + this.settings.leaseTtl,
            LIVE_TASK_EXPIRES_AT,
            serializeRecord(running),
            poolId,
            row.seq,
          );
          taken.push(running);
        }
        if (taken.length >= most) break;
      }
      if (limited) this.limits.started(queue, taken.length, now);
      if (taken.length > 0) {
        this.live.started(taken, now);
        return taken;
      }
    }
    return [];
  }

  /**
   * One attempt. Only when a cheap read (no write lock, so it never waits for
   * or blocks producers) sees work does it take the write lock to claim it.
   */
  private tryAcquire(
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | null,
  ): TaskRecord[] {
    const { tasks } = this.connection.sql;
    return this.connection.guard(() => {
      const key = queues.join('\n');
      const marker = this.changeMarker();
      if (this.emptyAt.get(key) === marker) return [];
      const now = Date.now();
      if (
        !queues.some((queue) => tasks.hasReady.get(this.alias, queue, now, this.alias, queue) === 1)
      ) {
        this.emptyAt.set(key, marker);
        return [];
      }
      return this.acquireTx.immediate(queues, workerId, max, now, poolId);
    });
  }

  private changeMarker(): string {
    const dataVersion = this.connection.db.pragma('data_version', { simple: true });
    return `${String(dataVersion)}:${this.localChanges}`;
  }
}

/** The most tasks one acquire takes: `max`, a whole number of at least 1 (default 1). */
export function maxOf(options: AcquireOptions): number {
  const requested = options.max ?? 1;
  return Number.isFinite(requested) ? Math.max(1, Math.trunc(requested)) : 1;
}
