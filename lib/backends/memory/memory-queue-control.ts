import { assertKnownQueue } from '../../core/known-queue';
import type { QueueLimits } from '../../core/queue-limits';
import type { MemoryStore } from './memory-store';

/**
 * The paused queues and queue limits of one MemoryBackend, kept in its store,
 * where the lease step reads them.
 *
 * @internal
 */
export class MemoryQueueControl {
  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
    private readonly store: MemoryStore,
    /** Idle acquires look again: what they wait for may be theirs now. */
    private readonly workAdded: () => void,
  ) {}

  pause(queue: string): void {
    assertKnownQueue(this.alias, this.queues, queue);
    this.store.paused.add(queue);
  }

  resume(queue: string): void {
    assertKnownQueue(this.alias, this.queues, queue);
    if (this.store.paused.delete(queue)) this.workAdded();
  }

  paused(): string[] {
    return [...this.store.paused];
  }

  setLimits(queue: string, limits: QueueLimits | null): void {
    assertKnownQueue(this.alias, this.queues, queue);
    this.store.limits.set(queue, limits);
    this.workAdded();
  }

  limits(): Record<string, QueueLimits> {
    return this.store.limits.all();
  }
}
