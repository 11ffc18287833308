import { ThreadmillError } from './threadmill.error';

/**
 * A feature needs an optional peer dependency that is not installed; the message names the package.
 *
 * @publicApi
 */
export class OptionalDependencyMissingError extends ThreadmillError {
  readonly code = 'OPTIONAL_DEPENDENCY_MISSING';
}
