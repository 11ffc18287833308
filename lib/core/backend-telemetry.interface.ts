/** Point-in-time size of each segment of one queue. */
export interface QueueCounts {
  ready: number;
  running: number;
  deferred: number;
  successful: number;
  failed: number;
  cancelled: number;
}

/** Tasks that entered (ingress) and finished (egress) a queue within a window. */
export interface QueueRates {
  intervalMs: number;
  ingress: number;
  /** Finished within the window: successful, failed and cancelled. */
  egress: number;
  /** The failed part of egress, so health checks can alert on a failure burst. */
  failed: number;
}

/** Telemetry of one queue: counts plus windowed rates. */
export interface QueueStats {
  counts: QueueCounts;
  rates: QueueRates;
}

/** Snapshot of every configured queue of one backend alias. */
export interface BackendTelemetry {
  queues: Record<string, QueueStats>;
}
