import { ThreadmillError } from '../../core/errors/threadmill.error';

/**
 * A move of the outbox relay that the store refused whole, nothing of it
 * written, because another relay has taken the lock since this one took
 * its generation: this one was replaced (its lock connection lost, or its
 * process paused), and the rows it read are the newer relay's to move. The
 * relay drops its lock connection and tries for the lock again.
 *
 * @internal
 */
export class OutboxRelayFencedError extends ThreadmillError {
  readonly code = 'OUTBOX_RELAY_FENCED';

  constructor(
    message: string,
    /** The generation the refused move carried. */
    readonly generation: number,
    /** The newer generation the store had. */
    readonly newer: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
