import { assertKnownQueue } from '../../core/known-queue';
import {
  decodeLimits,
  encodeLimits,
  type LimitRoom,
  type QueueLimits,
} from '../../core/queue-limits';
import type { SqliteConnection } from './sqlite-connection';
import type { StoreRules } from '../../core/ports/store-rules.port';

/**
 * The queue limits of a SqliteBackend alias: one row per queue that has
 * limits stored (the configured ones are seeded when the backend opens, so a
 * queue changed at run time keeps its change). The lease transaction asks
 * `room` and counts `started`, so every process of the file keeps them.
 *
 * @internal
 */
export class SqliteQueueLimits {
  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
    private readonly connection: SqliteConnection,
    private readonly workAdded: () => void,
    private readonly rules: StoreRules,
  ) {}

  /** The configured limits, stored for each queue the file has none for. */
  seed(configured: Readonly<Record<string, QueueLimits>>): void {
    const { queues } = this.connection.sql;
    this.connection.guard(() => {
      for (const [queue, limits] of Object.entries(configured)) {
        queues.seedLimits.run(this.alias, queue, encodeLimits(limits));
      }
    });
  }

  set(queue: string, limits: QueueLimits | null): void {
    assertKnownQueue(this.alias, this.queues, queue);
    const { queues } = this.connection.sql;
    this.connection.guard(() => queues.upsertLimits.run(this.alias, queue, encodeLimits(limits)));
    this.workAdded();
  }

  all(): Record<string, QueueLimits> {
    const { queues } = this.connection.sql;
    const all: Record<string, QueueLimits> = {};
    for (const row of this.connection.guard(() => queues.selectLimits.all(this.alias))) {
      const limits = decodeLimits(row.limits);
      if (limits) all[row.queue] = limits;
    }
    return all;
  }

  /** Inside the lease transaction: what `queue` may start now; null when it is unlimited. */
  room(queue: string, now: number): LimitRoom | null {
    const { queues } = this.connection.sql;
    const text = queues.selectQueueLimits.get(this.alias, queue);
    const limits = text === undefined ? null : decodeLimits(text);
    if (!limits) return null;
    const running =
      limits.concurrency === undefined ? 0 : (queues.countRunning.get(this.alias, queue) ?? 0);
    let starts: number[] = [];
    if (limits.rateLimit) {
      queues.trimStarts.run(this.alias, queue, now - limits.rateLimit.perMs);
      starts = queues.selectStarts.all(this.alias, queue);
    }
    return this.rules.limitRoom(limits, running, starts, now);
  }

  /** Inside the lease transaction: `count` starts of a limited `queue` at `now`. */
  started(queue: string, count: number, now: number): void {
    const { queues } = this.connection.sql;
    const text = queues.selectQueueLimits.get(this.alias, queue);
    if (text === undefined || !decodeLimits(text)?.rateLimit) return;
    for (let i = 0; i < count; i++) queues.insertStart.run(this.alias, queue, now);
  }
}
