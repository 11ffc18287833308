import type { AliasOption } from '../core/alias-option.interface';
/**
 * Limits that turn the indicator down when any queue crosses them. Each is
 * checked per queue; leave one out to not check it.
 *
 * @publicApi
 */
export interface HealthThresholds {
  /** Most READY tasks waiting in one queue. */
  maxReady?: number;
  /** Most RUNNING tasks in one queue. */
  maxRunning?: number;
  /** Most deferred tasks in one queue. */
  maxDeferred?: number;
  /** Most tasks that FAILED within `windowMs` in one queue (a CANCELLED one is not a failure). */
  maxFailedInWindow?: number;
}

/**
 * Options of `ThreadmillHealthIndicator.isHealthy`.
 *
 * @publicApi
 */
export interface ThreadmillHealthOptions extends AliasOption {
  /** How long the backend may take to answer. Default 1000 ms. */
  timeoutMs?: number;
  /** Window of the rates (ingress, egress, failed). Default 60 000 ms. */
  windowMs?: number;
  /**
   * Oldest maintenance heartbeat still counted as alive. Default: three maintenance
   * intervals (at least 3 s), so one slow pass does not flap the probe.
   */
  maxHeartbeatAgeMs?: number;
  /**
   * Longest the oldest task of the alias's outbox may wait for its relay
   * before the check is down (a stalled relay). Only for a backend with an
   * outbox (Redis's `outbox`). Default 60 000 ms.
   */
  maxOutboxAgeMs?: number;
  /** Skip the maintenance check, e.g. for a web app probe that must not depend on workers. */
  requireMaintenance?: boolean;
  thresholds?: HealthThresholds;
}
