import type { LoggerService } from '@nestjs/common';
import { TaskAlreadyExistsError } from '../core/errors/task-already-exists.error';
import type {
  ScheduleLastTick,
  ScheduleStore,
  StoredSchedule,
} from '../core/ports/schedule-store.port';
import { corruptSchedule, schedulePassFailed, scheduleTickFailed } from './schedule.messages';
import { dueTicks } from './due-ticks';
import { appOf } from './schedule-app';
import { parseDefinition, type ScheduleDefinition } from './schedule-definition';
import { TickSequence } from './tick-sequence';

/** Most due schedules one pass handles; the rest are next pass's (they stay due). */
export const MAX_DUE_PER_PASS = 100;

/** The id of a tick's task: the same in every pool, so a second enqueue of it is refused. */
export const tickTaskId = (scheduleId: string, tickMs: number): string =>
  `schedule:${scheduleId}:${tickMs}`;

export interface ScheduleTickerDeps {
  readonly store: ScheduleStore;
  /**
   * Enqueues one tick's task under `taskId`. Throws TaskAlreadyExistsError
   * when that id is stored (another pass enqueued the tick).
   */
  readonly enqueueTick: (
    scheduleId: string,
    definition: ScheduleDefinition,
    tickMs: number,
    taskId: string,
  ) => Promise<void>;
  /** Whether this task still waits or runs (false when it finished or is gone). */
  readonly isLive: (taskId: string) => Promise<boolean>;
  /** The app of the pool (ThreadmillModule's `app`). */
  readonly app: string;
  /** Whether this app has the schedule's task and queue, so it can enqueue its ticks. */
  readonly canEnqueue: (definition: ScheduleDefinition) => boolean;
  readonly logger: LoggerService;
}

/**
 * Enqueues the due ticks of one backend's schedules after a maintenance pass,
 * written once over every backend's ScheduleStore. Exactly one task per tick,
 * however many pools race: a tick's task id is derived from the schedule and
 * the tick, and every backend refuses an id it already stores, atomically; the
 * cursor then moves by compare-and-set from the value this pass read, so it
 * never goes back. A pass that dies between the two leaves the cursor where
 * it was: the next pass computes the same ticks, whose enqueues are refused,
 * and moves it. Due is decided on the store's clock, so pools whose clocks
 * differ agree.
 *
 * @internal
 */
export class ScheduleTicker {
  constructor(private readonly deps: ScheduleTickerDeps) {}

  /** One pass over the due schedules; how many ticks it enqueued. Never rejects. */
  async pass(): Promise<number> {
    let due: { nowMs: number; due: StoredSchedule[] };
    try {
      due = await this.deps.store.dueSchedules(MAX_DUE_PER_PASS);
    } catch (error) {
      this.deps.logger.error(schedulePassFailed(error));
      return 0;
    }
    let enqueued = 0;
    for (const schedule of due.due) {
      try {
        enqueued += await this.tick(schedule, due.nowMs);
      } catch (error) {
        // One schedule's failure (a task no longer registered, the store gone)
        // never holds up the others; its cursor stays, so the next pass retries.
        this.deps.logger.error(scheduleTickFailed(schedule.id, error));
      }
    }
    return enqueued;
  }

  private async tick(schedule: StoredSchedule, nowMs: number): Promise<number> {
    const cursor = schedule.nextTickMs;
    if (cursor === null) return 0;
    const definition = parseDefinition(schedule.definition);
    if (definition === null) {
      this.deps.logger.error(corruptSchedule(schedule.id));
      return 0;
    }
    // Another app's schedule whose task or queue this app lacks is its own pools' to tick;
    // one of this app's that it cannot enqueue is reported (a task taken out of the code).
    if (appOf(schedule) !== this.deps.app && !this.deps.canEnqueue(definition)) return 0;
    const { ticks, nextCursorMs } = dueTicks(
      new TickSequence(definition.rule),
      cursor,
      nowMs,
      definition.catchUp,
    );
    let last: ScheduleLastTick | null = schedule.lastTick;
    let enqueued = 0;
    for (const tickMs of ticks) {
      if (definition.overlap === 'skip' && last && (await this.deps.isLive(last.taskId))) continue;
      const taskId = tickTaskId(schedule.id, tickMs);
      try {
        await this.deps.enqueueTick(schedule.id, definition, tickMs, taskId);
        enqueued++;
      } catch (error) {
        // Another pass (or this one before a crash) enqueued this tick: it is done.
        if (!(error instanceof TaskAlreadyExistsError)) throw error;
      }
      last = { tickMs, taskId };
    }
    // A schedule that never ticks again keeps its cursor past every tick it had.
    const to = nextCursorMs ?? Number.MAX_SAFE_INTEGER;
    if (to > cursor) {
      await this.deps.store.advanceSchedule(
        schedule.id,
        cursor,
        to,
        last === schedule.lastTick ? null : last,
      );
    }
    return enqueued;
  }
}
