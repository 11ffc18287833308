import { ThreadmillError } from './threadmill.error';

/**
 * Stored data names a task that no `@Task` method declares; the task is failed, never run.
 *
 * @publicApi
 */
export class UnknownTaskError extends ThreadmillError {
  readonly code = 'UNKNOWN_TASK';
}
