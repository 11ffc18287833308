/**
 * Base of every error Threadmill throws. `name` is the class name (so it is
 * what a stored TaskErrorRecord shows) and `code` is stable across releases,
 * for callers that branch on it.
 *
 * @publicApi
 */
export abstract class ThreadmillError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
