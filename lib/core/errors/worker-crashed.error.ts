import { ThreadmillError } from './threadmill.error';

/**
 * Recorded on a task whose worker process died while it ran; the message names the exit code or signal.
 *
 * @publicApi
 */
export class WorkerCrashed extends ThreadmillError {
  readonly code = 'WORKER_CRASHED';
}
