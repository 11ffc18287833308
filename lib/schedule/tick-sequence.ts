import { Cron } from 'croner';

import { ZoneClock } from './zone-clock';

/** How a schedule ticks: a cron expression read in a zone, or a fixed interval. */
export type TickRule =
  { readonly cron: string; readonly timezone: string } | { readonly every: number };

/**
 * Most wall times one step looks at before giving up: the ones skipped are
 * those of the hour an autumn change repeats (their first occurrence is
 * already past), so only an every-second expression comes near it.
 */
const MAX_WALL_STEPS = 10_000;

/**
 * The ticks of one rule, as instants (epoch ms). Pure, so every pool
 * computes the same ticks from the same rule and cursor.
 *
 * A cron expression is matched by croner against wall-clock time (read in
 * UTC, where no hour is skipped or repeated), and each matching wall time is
 * turned into its instant by ZoneClock: in a spring gap at the gap's end, in
 * an autumn repeat at its first occurrence. A daily 02:30 in Europe/Berlin
 * thus ticks at 03:00 on the spring change day and once, at the first 02:30,
 * on the autumn one. Wall times of one gap share an instant and tick once.
 *
 * @internal
 */
export class TickSequence {
  private readonly cron: Cron | null;
  private readonly clock: ZoneClock | null;
  private readonly every: number | null;

  /**
   * @throws Error (croner's) for an invalid expression, RangeError for an unknown zone.
   */
  constructor(rule: TickRule) {
    if ('cron' in rule) {
      this.cron = new Cron(rule.cron, { timezone: 'UTC', paused: true });
      this.clock = new ZoneClock(rule.timezone);
      this.every = null;
    } else {
      this.cron = null;
      this.clock = null;
      this.every = rule.every;
    }
  }

  /** The first tick strictly after `instant`; null when the rule never ticks again. */
  nextAfter(instant: number): number | null {
    if (this.every !== null) return (Math.floor(instant / this.every) + 1) * this.every;
    const cron = this.cron as Cron;
    const clock = this.clock as ZoneClock;
    // A wall time maps to an instant at most its offset before it, so no wall
    // time at or before instant + the smallest offset nearby can tick after it.
    let wall = instant + clock.minOffsetAround(instant);
    for (let step = 0; step < MAX_WALL_STEPS; step++) {
      const next = cron.nextRun(new Date(wall));
      if (next === null) return null;
      wall = next.getTime();
      const tick = clock.instantOf(wall);
      if (tick > instant) return tick;
    }
    return null;
  }
}
