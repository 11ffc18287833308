/**
 * Base of every error Threadmill throws. `name` is the class name (so it is
 * what a stored TaskErrorRecord shows) and `code` is stable across releases,
 * for callers that branch on it.
 *
 * @publicApi
 */
export abstract class ThreadmillError extends Error {
  abstract readonly code: string;
  /**
   * Whether the same call can succeed if sent again later, unchanged (an
   * outage, a full store). An enqueue whose outcome is unknown is retryable
   * with the same ids: a repeat finds what the first one stored.
   */
  readonly retryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
