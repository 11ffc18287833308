import { ThreadmillError } from './threadmill.error';

/**
 * The store was reached and refused a command with an error of its own (a
 * script error, a key of the wrong type, a read-only replica, a missing
 * script after it was sent again); the message names the command and quotes
 * the store's reply. Not a connection problem: retrying the same call
 * usually fails the same way.
 *
 * @publicApi
 */
export class BackendCommandError extends ThreadmillError {
  readonly code = 'BACKEND_COMMAND_FAILED';

  /**
   * @param command what was refused: a script (`enqueue.lua`) or a command (`zadd`).
   * @param reply the store's own error text.
   */
  constructor(
    message: string,
    readonly command: string,
    readonly reply: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
