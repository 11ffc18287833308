/**
 * At most `max` tasks of a queue start in any window of `perMs`
 * milliseconds, counted across every pool of the store (a sliding window).
 *
 * @publicApi
 */
export interface QueueRateLimit {
  max: number;
  perMs: number;
}

/**
 * What a queue may run across every pool of its store at once.
 *
 * @publicApi
 */
export interface QueueLimits {
  /** Most tasks of the queue RUNNING at once. */
  concurrency?: number;
  /** Most starts in a sliding window. */
  rateLimit?: QueueRateLimit;
}

/**
 * A queue of a backend's `queues` configured with its limits:
 * `{ name: 'emails', concurrency: 5, rateLimit: { max: 100, perMs: 1000 } }`.
 *
 * @publicApi
 */
export interface QueueConfig extends QueueLimits {
  name: string;
}

/** Whether `limits` limits anything (an empty object or null does not). */
export function hasLimits(limits: QueueLimits | null | undefined): limits is QueueLimits {
  return limits?.concurrency !== undefined || limits?.rateLimit !== undefined;
}

/**
 * Limits as a store keeps them, one string (`concurrency max perMs`, 0 for
 * none): the Redis script reads it without decoding JSON, and "0 0 0" is a
 * queue whose limits were cleared at run time (so the configured ones do not
 * come back).
 */
export function encodeLimits(limits: QueueLimits | null): string {
  return `${limits?.concurrency ?? 0} ${limits?.rateLimit?.max ?? 0} ${limits?.rateLimit?.perMs ?? 0}`;
}

/** The limits `encodeLimits` wrote; null for "0 0 0". */
export function decodeLimits(text: string): QueueLimits | null {
  const [concurrency, max, perMs] = text.split(' ').map(Number);
  const limits: QueueLimits = {};
  if (concurrency > 0) limits.concurrency = concurrency;
  if (max > 0 && perMs > 0) limits.rateLimit = { max, perMs };
  return hasLimits(limits) ? limits : null;
}

/** How many tasks a limited queue may start now, and when to look again when none. */
export interface LimitRoom {
  room: number;
  /** When `room` is 0 for the rate window: ms until it admits a start; else 0. */
  waitMs: number;
}
