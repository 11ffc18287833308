/** Where a stored schedule came from: a `@Task` declaration, or `ScheduleService` at run time. */
export type ScheduleOrigin = 'declared' | 'runtime';

/** The last tick a maintenance pass handled, and the id of the task it enqueued for it. */
export interface ScheduleLastTick {
  /** The tick's time (epoch ms, the store's clock). */
  readonly tickMs: number;
  readonly taskId: string;
}

/**
 * A schedule as a backend stores it. The definition is opaque JSON text to
 * the store: only lib/schedule reads it, so every backend stores the same.
 */
export interface StoredSchedule {
  readonly id: string;
  readonly definition: string;
  readonly origin: ScheduleOrigin;
  /**
   * The app that declared it, or added it at run time (ThreadmillModule's
   * `app` option); null when stored before apps were recorded (lib/schedule
   * reads that as the default app).
   */
  readonly app: string | null;
  readonly paused: boolean;
  /** The cursor: the next tick due (epoch ms, the store's clock); null while paused. */
  readonly nextTickMs: number | null;
  /** Null before the first tick. */
  readonly lastTick: ScheduleLastTick | null;
}

/** What `putSchedule` writes: everything but the last tick, which only a pass moves. */
export type ScheduleEntry = Omit<StoredSchedule, 'lastTick'>;

/**
 * What a backend stores for schedules: atomic primitives only. Which ticks
 * are due, what they enqueue, catch-up and overlap are lib/schedule's,
 * written once above the stores. Every time is the store's clock.
 */
export interface ScheduleStore {
  /** The store's clock now (epoch ms). */
  scheduleClock(): Promise<number>;
  /** Adds or replaces one schedule; its last tick (if any) is kept. */
  putSchedule(entry: ScheduleEntry): Promise<void>;
  /** Removes one schedule and its last tick; whether it was stored. */
  removeSchedule(id: string): Promise<boolean>;
  getSchedule(id: string): Promise<StoredSchedule | null>;
  /** Every schedule, by id. */
  listSchedules(): Promise<StoredSchedule[]>;
  /**
   * The store's clock, and at most `max` schedules not paused whose cursor
   * is at or before it, earliest cursor first: one index range, so a pass
   * with nothing due costs one cheap read however many schedules exist.
   */
  dueSchedules(max: number): Promise<{ nowMs: number; due: StoredSchedule[] }>;
  /**
   * Compare-and-set of the cursor: moves it from `fromMs` to `toMs` (later
   * than `fromMs`) and, when given, records `lastTick`, only while the stored
   * cursor is still `fromMs`. Whether it moved.
   */
  advanceSchedule(
    id: string,
    fromMs: number,
    toMs: number,
    lastTick: ScheduleLastTick | null,
  ): Promise<boolean>;
}
