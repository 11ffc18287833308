import type { TickSequence } from './tick-sequence';

/**
 * A schedule's catch-up rule with its defaults applied.
 *
 * @publicApi
 */
export interface ResolvedCatchUp {
  readonly windowMs: number;
  readonly missed: 'latest' | 'all';
  readonly limit: number;
}

/** What one pass enqueues for a schedule, and where its cursor goes after. */
export interface DueTicks {
  /** Tick instants to enqueue, oldest first. */
  readonly ticks: number[];
  /** The first tick not handled (null: the rule never ticks again). */
  readonly nextCursorMs: number | null;
}

/**
 * Most on-time ticks one pass enqueues for one schedule; the rest stay due
 * for the next pass (a second later), so a long window of a fast schedule
 * does not hold a pass up.
 */
export const MAX_TICKS_PER_PASS = 100;

/** How far back the search for the latest missed ticks looks, widening until it finds enough. */
const LOOK_BACK_MS = [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 366 * 86_400_000];

/**
 * The ticks a pass at `nowMs` (the store's clock) enqueues for a schedule
 * whose cursor is `cursorMs`, as the catch-up rule says: every tick within
 * `windowMs` of now (on time: a pass found it within the window), and of the
 * older ones (missed: no pass ran within the window after them) the latest,
 * or with `missed: 'all'` the latest `limit`. Pure: racing passes that read
 * the same cursor compute the same ticks, hence the same task ids.
 *
 * @internal
 */
export function dueTicks(
  sequence: TickSequence,
  cursorMs: number,
  nowMs: number,
  catchUp: ResolvedCatchUp,
  maxOnTime: number = MAX_TICKS_PER_PASS,
): DueTicks {
  if (cursorMs > nowMs) return { ticks: [], nextCursorMs: cursorMs };
  const boundary = nowMs - catchUp.windowMs;
  const ticks: number[] = [];
  if (cursorMs < boundary) {
    const count = catchUp.missed === 'latest' ? 1 : catchUp.limit;
    ticks.push(...lastTicksBefore(sequence, boundary, count, cursorMs));
  }
  let tick = sequence.nextAfter(Math.max(cursorMs, boundary) - 1);
  let onTime = 0;
  while (tick !== null && tick <= nowMs && onTime < maxOnTime) {
    ticks.push(tick);
    onTime++;
    tick = sequence.nextAfter(tick);
  }
  return { ticks, nextCursorMs: tick };
}

/** The latest `count` ticks at or after `notBefore` and before `before`, oldest first. */
function lastTicksBefore(
  sequence: TickSequence,
  before: number,
  count: number,
  notBefore: number,
): number[] {
  for (const lookBack of [...LOOK_BACK_MS, Infinity]) {
    const from = Math.max(notBefore, before - lookBack);
    const found: number[] = [];
    let seen = 0;
    for (let tick = sequence.nextAfter(from - 1); tick !== null && tick < before;) {
      found.push(tick);
      if (found.length > count) found.shift();
      seen++;
      tick = sequence.nextAfter(tick);
    }
    if (seen >= count || from === notBefore) return found;
  }
  return [];
}
