import type { LimitRoom, QueueLimits } from '../core/queue-limits';

/**
 * The one rule every store applies inside its lease step: room is what the
 * concurrency leaves beside `running`, and what the sliding window leaves
 * beside `starts` (start times within the last `perMs`, oldest first).
 */
export function limitRoom(
  limits: QueueLimits,
  running: number,
  starts: readonly number[],
  now: number,
): LimitRoom {
  let room = limits.concurrency === undefined ? Infinity : limits.concurrency - running;
  let waitMs = 0;
  if (limits.rateLimit) {
    const { max, perMs } = limits.rateLimit;
    const left = max - starts.length;
    if (left <= 0 && room > 0) waitMs = Math.max(1, starts[starts.length - max] + perMs - now);
    room = Math.min(room, left);
  }
  return { room: Math.max(0, room), waitMs: room > 0 ? 0 : waitMs };
}
