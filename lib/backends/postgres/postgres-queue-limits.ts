import { assertKnownQueue } from '../../core/known-queue';
import type { StoreRules } from '../../core/ports/store-rules.port';
import {
  decodeLimits,
  encodeLimits,
  type LimitRoom,
  type QueueLimits,
} from '../../core/queue-limits';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import { lockKey } from './postgres-names';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresQueueStatements } from './postgres-queue-statements';

/** What a lease learns of a queue as it enters it. */
export interface QueueEntry {
  /** The stored limits; null when the queue is unlimited. */
  limits: QueueLimits | null;
}

/**
 * The paused queues and queue limits of a Postgres alias. A lease enters a
 * queue under a shared lock that a pause takes exclusively, so no lease that
 * read the queue as running commits after a pause returned. The leases of a
 * limited queue then take its limit lock one at a time, so the room one
 * reads is never spent by another (every backend's rule, limitRoom).
 *
 * @internal
 */
export class PostgresQueueLimits {
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresQueueStatements,
    private readonly notices: PostgresNotices,
    private readonly rules: StoreRules,
  ) {}

  /** The queue's pause lock (a lease shares it, a pause takes it whole). */
  pauseKey(queue: string): string {
    return this.keyOf('pause', queue);
  }

  /** The queue's limit lock, which the leases of a limited queue take one at a time. */
  limitKey(queue: string): string {
    return this.keyOf('limit', queue);
  }

  /** A queue's lock key, hashed once per queue and kind (every lease asks). */
  private keyOf(kind: 'pause' | 'limit', queue: string): string {
    const name = `${kind}\n${queue}`;
    let key = this.keys.get(name);
    if (key === undefined) {
      key = lockKey(kind, this.connection.schema, this.alias, queue);
      this.keys.set(name, key);
    }
    return key;
  }

  /** The configured limits, stored for each queue the store has none for. */
  async seed(configured: Readonly<Record<string, QueueLimits>>): Promise<void> {
    const entries = Object.entries(configured);
    if (entries.length === 0) return;
    await this.connection.query(this.sql.seedLimits, [
      this.alias,
      entries.map(([queue]) => queue),
      entries.map(([, limits]) => encodeLimits(limits)),
    ]);
  }

  async set(queue: string, limits: QueueLimits | null): Promise<void> {
    assertKnownQueue(this.alias, this.queues, queue);
    await this.connection.transaction(async (tx) => {
      await tx.query(this.sql.lockExclusive, [this.limitKey(queue)]);
      await tx.query(this.sql.upsertLimits, [this.alias, queue, encodeLimits(limits)]);
      this.notices.work(tx, [queue]);
    });
  }

  async all(): Promise<Record<string, QueueLimits>> {
    const rows = await this.connection.query<{ queue: string; limits: string }>(
      this.sql.selectLimits,
      [this.alias],
    );
    const all: Record<string, QueueLimits> = {};
    for (const row of rows) {
      const limits = decodeLimits(row.limits);
      if (limits) all[row.queue] = limits;
    }
    return all;
  }

  async pause(queue: string): Promise<void> {
    assertKnownQueue(this.alias, this.queues, queue);
    await this.connection.transaction(async (tx) => {
      await tx.query(this.sql.lockExclusive, [this.pauseKey(queue)]);
      await tx.query(this.sql.insertPaused, [this.alias, queue]);
    });
  }

  async resume(queue: string): Promise<void> {
    assertKnownQueue(this.alias, this.queues, queue);
    await this.connection.transaction(async (tx) => {
      const resumed = await tx.query(this.sql.deletePaused, [this.alias, queue]);
      if (resumed.length > 0) this.notices.work(tx, [queue]);
    });
  }

  async paused(): Promise<string[]> {
    const rows = await this.connection.query<{ queue: string }>(this.sql.selectPaused, [
      this.alias,
    ]);
    return rows.map((row) => row.queue);
  }

  /** Inside a lease: takes the queue's shared pause lock and reads its limits. */
  async enter(tx: PostgresTx, queue: string): Promise<QueueEntry> {
    const [row] = await tx.query<{ limits: string | null }>(this.sql.enterQueue, [
      this.alias,
      queue,
      this.pauseKey(queue),
    ]);
    return { limits: row?.limits ? decodeLimits(row.limits) : null };
  }

  /**
   * Inside a lease of a limited queue: its limit lock taken, what it may
   * start now, and when that is (`at`): the server's clock read under the
   * lock, which every pool's rate window is kept on.
   */
  async room(
    tx: PostgresTx,
    queue: string,
    limits: QueueLimits,
  ): Promise<{ room: LimitRoom; at: number }> {
    const [locked] = await tx.query<{ ms: number }>(this.sql.lockLimit, [this.limitKey(queue)]);
    const at = locked.ms;
    let running = 0;
    if (limits.concurrency !== undefined) {
      const [row] = await tx.query<{ running: number }>(this.sql.countRunning, [this.alias, queue]);
      running = row?.running ?? 0;
    }
    let starts: number[] = [];
    if (limits.rateLimit) {
      await tx.query(this.sql.trimStarts, [this.alias, queue, at - limits.rateLimit.perMs]);
      const rows = await tx.query<{ at: number }>(this.sql.selectStarts, [this.alias, queue]);
      starts = rows.map((row) => row.at);
    }
    return { room: this.rules.limitRoom(limits, running, starts, at), at };
  }

  /** Inside the lease: `count` starts of a rate-limited `queue` at `at` (room's). */
  async started(tx: PostgresTx, queue: string, limits: QueueLimits, count: number, at: number) {
    if (!limits.rateLimit || count === 0) return;
    await tx.query(this.sql.insertStarts, [this.alias, queue, at, count]);
  }
}
