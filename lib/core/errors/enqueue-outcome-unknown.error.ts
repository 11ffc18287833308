import { ThreadmillError } from './threadmill.error';

/**
 * An enqueue was sent but its reply never came (a command timeout, a
 * connection dropped after the write): the tasks may or may not be stored,
 * all of them or none (an enqueue is atomic). `ids` are their ids. Look one
 * up with `getResult` before enqueuing again, or enqueue again with the same
 * id (`using({ id })`): a stored id is refused with TaskAlreadyExistsError,
 * so the repeat never runs a task twice.
 *
 * @publicApi
 */
export class EnqueueOutcomeUnknownError extends ThreadmillError {
  readonly code = 'ENQUEUE_OUTCOME_UNKNOWN';
  override readonly retryable = true;

  constructor(
    message: string,
    readonly ids: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
