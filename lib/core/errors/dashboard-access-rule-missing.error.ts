import { ThreadmillError } from './threadmill.error';

/**
 * The dashboard was mounted without an access rule (`authorize`, `guards`)
 * and without `open: true`; the message says how to give one.
 *
 * @publicApi
 */
export class DashboardAccessRuleMissingError extends ThreadmillError {
  readonly code = 'DASHBOARD_ACCESS_RULE_MISSING';
}
