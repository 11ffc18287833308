import { ThreadmillError } from './threadmill.error';

/**
 * Recorded on a task whose whole worker pool stopped beating (killed, frozen
 * or cut off) while it ran; another pool's maintenance pass recovered it. The message
 * names the pool.
 *
 * @publicApi
 */
export class WorkerLost extends ThreadmillError {
  readonly code = 'WORKER_LOST';
}
