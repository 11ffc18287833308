import { ThreadmillError } from './threadmill.error';

/**
 * A unique enqueue made through a Redis alias's outbox was not moved into
 * Redis within the wait `settled()` was given, so who holds its key is not
 * known yet: its transaction may still be open or have rolled back, or no
 * relay is moving the outbox. `id` is the enqueue's own id. Waiting again
 * later may find it moved.
 *
 * @publicApi
 */
export class OutboxMoveTimeoutError extends ThreadmillError {
  readonly code = 'OUTBOX_MOVE_TIMEOUT';
  override readonly retryable = true;

  constructor(
    message: string,
    readonly id: string,
    readonly waitedMs: number,
  ) {
    super(message);
  }
}
