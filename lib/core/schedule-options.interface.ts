import type { AliasOption } from './alias-option.interface';
/**
 * What happens to ticks no maintenance pass enqueued in time (every worker
 * pool stopped, or the store unreachable).
 *
 * @publicApi
 */
export interface ScheduleCatchUp {
  /**
   * How long after its time a tick still counts as on time (ms, a whole
   * number from 0 to 7 days): every tick a pass finds within it is
   * enqueued, each once. Default: 60 000.
   */
  windowMs?: number;
  /**
   * Ticks older than the window (missed): `'latest'` enqueues the latest of
   * them once, `'all'` each of them, the latest `limit`. Default: `'latest'`.
   */
  missed?: 'latest' | 'all';
  /** With `missed: 'all'`, most missed ticks enqueued at once (1 to 1000). Default: 10. */
  limit?: number;
}

/**
 * When a schedule ticks and what each tick enqueues. Exactly one of `cron`
 * and `every`.
 *
 * @publicApi
 */
export interface ScheduleTiming {
  /** Cron expression: 5 fields, or 6 with seconds first (`'0 3 * * *'`, `'*\/30 * * * * *'`). */
  cron?: string;
  /** A fixed interval (ms, a whole number, at least 1000), ticking at multiples of it since the epoch. */
  every?: number;
  /** IANA time zone the cron expression is read in (`'Europe/Berlin'`). Default: `'UTC'`. */
  timezone?: string;
  /** The task's arguments for every tick (JSON values). Default: none. */
  args?: unknown[];
  /** Queue of each tick's task. Default: the task's. */
  queue?: string;
  /** Priority of each tick's task. Default: the task's. */
  priority?: number;
  catchUp?: ScheduleCatchUp;
  /**
   * `'skip'`: a tick is skipped while the previous tick's task still waits or
   * runs. Default: `'allow'`.
   */
  overlap?: 'allow' | 'skip';
}

/**
 * One schedule declared on a task: `@Task({ schedule: { cron: '0 3 * * *' } })`.
 *
 * @publicApi
 */
export interface TaskSchedule extends ScheduleTiming {
  /**
   * Stable id (1-150 letters, digits, `-`, `_`, `.` or `:`). Default: the
   * task's name and the schedule's index, e.g. `reports.nightly.0`.
   */
  id?: string;
}

/**
 * A schedule added at run time through `ScheduleService.add`.
 *
 * @publicApi
 */
export interface ScheduleOptions extends ScheduleTiming, AliasOption {
  /** The stable name of the task each tick enqueues. */
  task: string;
}
