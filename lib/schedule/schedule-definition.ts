import { InvalidTaskError } from '../core/errors/invalid-task.error';
import type { ScheduleTiming } from '../core/schedule-options.interface';
import {
  invalidCatchUp,
  invalidCron,
  invalidEvery,
  invalidOverlap,
  invalidScheduleArgs,
  invalidScheduleId,
  scheduleArgs,
  scheduleNeverTicks,
  scheduleTimingMissing,
  unknownTimezone,
} from './schedule.messages';
import { assertJsonSafe } from '../core/task-serializer';
import { PRIORITY_MAX, PRIORITY_MIN } from '../core/threadmill.constants';
import { invalidPriority, invalidName } from '../core/threadmill.messages';
import { isValidName, isValidScheduleId } from '../core/validate-name.util';
import type { ResolvedCatchUp } from './due-ticks';
import { TickSequence, type TickRule } from './tick-sequence';

/** The shortest `every`: a maintenance pass runs about once a second. */
export const MIN_EVERY_MS = 1000;
/** The longest `every` and catch-up window a schedule may have. */
export const MAX_EVERY_MS = 366 * 86_400_000;
export const MAX_WINDOW_MS = 7 * 86_400_000;
export const MAX_MISSED_LIMIT = 1000;
export const DEFAULT_CATCH_UP: ResolvedCatchUp = { windowMs: 60_000, missed: 'latest', limit: 10 };

/**
 * A schedule as stored (its `definition` JSON): every option resolved, in a
 * fixed key order, so two equal definitions are equal text and a sync can
 * tell an unchanged declared schedule by comparing strings.
 */
export interface ScheduleDefinition {
  readonly task: string;
  readonly rule: TickRule;
  readonly args: readonly unknown[];
  /** Absent: the task's queue and priority at each tick. */
  readonly queue?: string;
  readonly priority?: number;
  readonly catchUp: ResolvedCatchUp;
  readonly overlap: 'allow' | 'skip';
}

/**
 * Checks a schedule's options and resolves them, naming the schedule and the
 * option at fault.
 *
 * @throws InvalidTaskError for an invalid id, cron, time zone, interval,
 *   catch-up, overlap, queue name, priority, or arguments that are not JSON.
 */
export function resolveSchedule(
  id: string,
  task: string,
  options: ScheduleTiming,
  where: string,
): ScheduleDefinition {
  if (!isValidScheduleId(id)) throw new InvalidTaskError(invalidScheduleId(id, where));
  const rule = resolveRule(id, options);
  const { queue, priority, args = [] } = options;
  if (queue !== undefined && !isValidName(queue)) {
    throw new InvalidTaskError(invalidName('queue', queue));
  }
  if (
    priority !== undefined &&
    !(Number.isInteger(priority) && priority >= PRIORITY_MIN && priority <= PRIORITY_MAX)
  ) {
    throw new InvalidTaskError(invalidPriority(task, priority, PRIORITY_MIN, PRIORITY_MAX));
  }
  if (!Array.isArray(args)) throw new InvalidTaskError(invalidScheduleArgs(id, task));
  assertJsonSafe(args, task, scheduleArgs(id));
  const overlap = options.overlap ?? 'allow';
  if (overlap !== 'allow' && overlap !== 'skip') {
    throw new InvalidTaskError(invalidOverlap(id, overlap));
  }
  return {
    task,
    rule,
    args: JSON.parse(JSON.stringify(args)) as unknown[],
    ...(queue === undefined ? {} : { queue }),
    ...(priority === undefined ? {} : { priority }),
    catchUp: resolveCatchUp(id, options),
    overlap,
  };
}

function resolveRule(id: string, options: ScheduleTiming): TickRule {
  const { cron, every } = options;
  if ((cron === undefined) === (every === undefined)) {
    throw new InvalidTaskError(scheduleTimingMissing(id));
  }
  if (every !== undefined) {
    if (!Number.isInteger(every) || every < MIN_EVERY_MS || every > MAX_EVERY_MS) {
      throw new InvalidTaskError(invalidEvery(id, every, MIN_EVERY_MS, MAX_EVERY_MS));
    }
    return { every };
  }
  const timezone = options.timezone ?? 'UTC';
  if (typeof cron !== 'string') throw new InvalidTaskError(invalidCron(id, cron, 'not a string'));
  let sequence: TickSequence;
  try {
    sequence = new TickSequence({ cron, timezone: 'UTC' });
  } catch (error) {
    throw new InvalidTaskError(invalidCron(id, cron, (error as Error).message));
  }
  try {
    sequence = new TickSequence({ cron, timezone });
  } catch {
    // The expression parsed in UTC above, so what fails here is the zone.
    throw new InvalidTaskError(unknownTimezone(id, timezone));
  }
  if (sequence.nextAfter(Date.now()) === null) {
    throw new InvalidTaskError(scheduleNeverTicks(id, cron));
  }
  return { cron, timezone };
}

function resolveCatchUp(id: string, options: ScheduleTiming): ResolvedCatchUp {
  const { windowMs, missed, limit } = { ...DEFAULT_CATCH_UP, ...options.catchUp };
  if (!Number.isInteger(windowMs) || windowMs < 0 || windowMs > MAX_WINDOW_MS) {
    throw new InvalidTaskError(
      invalidCatchUp(id, `windowMs must be a whole number of ms from 0 to ${MAX_WINDOW_MS}`),
    );
  }
  if (missed !== 'latest' && missed !== 'all') {
    throw new InvalidTaskError(invalidCatchUp(id, 'missed must be "latest" or "all"'));
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MISSED_LIMIT) {
    throw new InvalidTaskError(
      invalidCatchUp(id, `limit must be a whole number from 1 to ${MAX_MISSED_LIMIT}`),
    );
  }
  return { windowMs, missed, limit };
}

/** The stored text of a definition. */
export function definitionText(definition: ScheduleDefinition): string {
  return JSON.stringify(definition);
}

/** A stored definition, or null when it is not one this version wrote. */
export function parseDefinition(text: string): ScheduleDefinition | null {
  try {
    const parsed = JSON.parse(text) as Partial<ScheduleDefinition> | null;
    if (
      typeof parsed?.task !== 'string' ||
      typeof parsed.rule !== 'object' ||
      parsed.rule === null ||
      !Array.isArray(parsed.args) ||
      typeof parsed.catchUp !== 'object'
    ) {
      return null;
    }
    return parsed as ScheduleDefinition;
  } catch {
    // Not JSON: the caller logs the schedule as unreadable and leaves it alone.
    return null;
  }
}
