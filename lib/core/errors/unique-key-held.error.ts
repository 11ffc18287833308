import { ThreadmillError } from './threadmill.error';

/**
 * An enqueue's unique key is held by a window (`unique: { mode: 'window' }`)
 * whose task's record is gone (trimmed or expired), so there is no task to
 * return and none was made. Enqueue again from `windowEndsAt` on.
 *
 * @publicApi
 */
export class UniqueKeyHeldError extends ThreadmillError {
  readonly code = 'UNIQUE_KEY_HELD';
  override readonly retryable = true;

  constructor(
    message: string,
    readonly key: string,
    /** The id of the task that took the key. */
    readonly holderId: string,
    /** When the window ends, on the store's clock. */
    readonly windowEndsAt: Date,
  ) {
    super(message);
  }
}
