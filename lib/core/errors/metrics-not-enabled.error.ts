import { ThreadmillError } from './threadmill.error';

/**
 * ThreadmillMetrics was read while the metrics are off; the message says how to turn them on.
 *
 * @publicApi
 */
export class MetricsNotEnabledError extends ThreadmillError {
  readonly code = 'METRICS_NOT_ENABLED';
}
