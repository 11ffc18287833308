import { ThreadmillError } from './threadmill.error';

/**
 * An option of `ThreadmillDashboardModule.forRoot` is invalid; the message names it and what it takes.
 *
 * @publicApi
 */
export class InvalidDashboardOptionError extends ThreadmillError {
  readonly code = 'INVALID_DASHBOARD_OPTION';
}
