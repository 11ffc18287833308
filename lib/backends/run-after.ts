/**
 * How long from `now` a task set to run at `runAfter` must still wait (ms,
 * at least 0; 0 without a runAfter). `runAfter` and `now` must be read on
 * the same clock: the one of the process that set it (the enqueuer, or the
 * worker that chose a retry's backoff). Backends send this wait, measured
 * right before the store call, and the store adds it to its own clock, so
 * a runAfter means the caller's wall time and a backoff is waited in full,
 * however far the caller's clock is from the store's.
 */
export function delayUntil(runAfter: Date | null | undefined, now: number): number {
  const at = runAfter?.getTime();
  return at === undefined || !(at > now) ? 0 : at - now;
}
