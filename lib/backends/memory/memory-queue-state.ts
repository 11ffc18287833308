import type { FinishedSegment } from '../../core/queue-segment';
import { MemoryReadyQueue } from './memory-ready-queue';

/**
 * What one queue of a MemoryBackend holds besides the task records
 * themselves.
 *
 * @internal
 */
export interface MemoryQueueState {
  readonly ready: MemoryReadyQueue;
  /** id -> due time (ms). */
  readonly deferred: Map<string, number>;
  /** id -> finish time (ms), per outcome. */
  readonly history: Record<FinishedSegment, Map<string, number>>;
  /** Enqueue times (ms), oldest first. */
  readonly ingress: number[];
}

/** A queue with nothing in it yet. */
export function emptyQueueState(): MemoryQueueState {
  return {
    ready: new MemoryReadyQueue(),
    deferred: new Map(),
    history: { successful: new Map(), failed: new Map(), cancelled: new Map() },
    ingress: [],
  };
}
