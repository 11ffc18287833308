/** Seconds from `from` to `to`, never negative (two hosts' clocks may disagree a little). */
export function secondsBetween(from: Date | null, to: Date | null): number | null {
  if (from === null || to === null) return null;
  return Math.max(0, (to.getTime() - from.getTime()) / 1000);
}

/** When a task became due: its `runAfter` (a deferral or a retry's backoff) when later than its enqueue. */
export function dueAt(enqueuedAt: Date, runAfter: Date | null): Date {
  return runAfter !== null && runAfter.getTime() > enqueuedAt.getTime() ? runAfter : enqueuedAt;
}
