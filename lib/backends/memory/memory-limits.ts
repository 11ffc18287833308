import type { StoreRules } from '../../core/ports/store-rules.port';
import { encodeLimits, decodeLimits, type QueueLimits } from '../../core/queue-limits';

/**
 * The queue limits of one MemoryBackend and the start times its rate
 * windows count. The configured limits seed it when the backend is built;
 * a run-time change replaces them (null is stored as "none", so a cleared
 * queue stays unlimited).
 *
 * @internal
 */
export class MemoryLimits {
  private readonly stored = new Map<string, string>();
  /** Queue -> start times (ms) within its window, oldest first. */
  private readonly starts = new Map<string, number[]>();

  constructor(
    configured: Readonly<Record<string, QueueLimits>>,
    private readonly rules: StoreRules,
  ) {
    for (const [queue, limits] of Object.entries(configured)) {
      this.stored.set(queue, encodeLimits(limits));
    }
  }

  set(queue: string, limits: QueueLimits | null): void {
    this.stored.set(queue, encodeLimits(limits));
  }

  /** The limited queues' limits. */
  all(): Record<string, QueueLimits> {
    const all: Record<string, QueueLimits> = {};
    for (const [queue, text] of this.stored) {
      const limits = decodeLimits(text);
      if (limits) all[queue] = limits;
    }
    return all;
  }

  /** Whether any queue is limited: only then does finishing a task wake idle consumers. */
  any(): boolean {
    return Object.keys(this.all()).length > 0;
  }

  /** What `queue` may start now beside its `running` tasks; null for an unlimited queue. */
  room(queue: string, running: () => number, now: number): { room: number; waitMs: number } | null {
    const text = this.stored.get(queue);
    const limits = text === undefined ? null : decodeLimits(text);
    if (!limits) return null;
    const starts = this.starts.get(queue) ?? [];
    const perMs = limits.rateLimit?.perMs ?? 0;
    while (starts.length > 0 && starts[0] <= now - perMs) starts.shift();
    return this.rules.limitRoom(
      limits,
      limits.concurrency === undefined ? 0 : running(),
      starts,
      now,
    );
  }

  /** `count` tasks of `queue` started `now`: counted by its window when it has one. */
  started(queue: string, count: number, now: number): void {
    const text = this.stored.get(queue);
    if (!text || !decodeLimits(text)?.rateLimit) return;
    const starts = this.starts.get(queue) ?? [];
    for (let i = 0; i < count; i++) starts.push(now);
    this.starts.set(queue, starts);
  }
}
