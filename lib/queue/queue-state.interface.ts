import type { AliasOption } from '../core/alias-option.interface';
import type { QueueCounts } from '../core/backend-telemetry.interface';
import type { QueueLimits } from '../core/queue-limits';

/**
 * What is set on one queue of a backend for every pool at once, stored by the
 * backend so a pool started later sees it too.
 *
 * @publicApi
 */
export interface QueueState {
  /** No pool starts a task of the queue until it is resumed; enqueue still stores. */
  paused: boolean;
  /** What the queue may run across every pool; null when it is unlimited. */
  limits: QueueLimits | null;
}

/**
 * One queue as `QueueService.list` reports it.
 *
 * @publicApi
 */
export interface QueueSummary {
  queue: string;
  /** The backend alias the queue belongs to. */
  alias: string;
  /** @deprecated Renamed `alias` (same value) in 0.4.0; kept until 0.5.0. */
  backend: string;
  counts: QueueCounts;
  state: QueueState;
}

/**
 * Which backend a `QueueService` call acts on.
 *
 * @publicApi
 */
export type QueueTargetOptions = AliasOption;
