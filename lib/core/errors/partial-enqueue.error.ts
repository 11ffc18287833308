import type { EnqueuedTaskResult } from '../enqueued-task-result';
import { ThreadmillError } from './threadmill.error';

/**
 * A bulk enqueue larger than one slice (ENQUEUE_SLICE tasks) is stored one
 * slice after the other, each all or none, and one failed: the slices
 * before it are stored (`stored`, in the order given), it and the ones after
 * are not — except that the failed slice may be stored whole when `cause` is
 * an EnqueueOutcomeUnknownError. `cause` is the slice's own error.
 *
 * @publicApi
 */
export class PartialEnqueueError extends ThreadmillError {
  readonly code = 'PARTIAL_ENQUEUE';

  constructor(
    message: string,
    /** The tasks stored, in the order of the argument lists: the first `stored.length` of them. */
    readonly stored: readonly EnqueuedTaskResult[],
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}
