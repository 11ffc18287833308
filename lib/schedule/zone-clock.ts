const DAY_MS = 86_400_000;

/**
 * Wall-clock time in one IANA zone, as epoch ms read as if it were UTC
 * ("wall ms"), and back. Cron expressions are wall-clock rules; this is the
 * one place wall times meet instants, so the two DST rules live here: a wall
 * time the zone skips (spring gap) happens at the gap's end, and one it
 * repeats (autumn) happens at its first occurrence.
 *
 * @internal
 */
export class ZoneClock {
  private readonly format: Intl.DateTimeFormat;

  /** @throws RangeError for a zone the runtime does not know. */
  constructor(readonly zone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The zone's offset from UTC at `instant` (ms; +3 600 000 for CET). */
  offsetAt(instant: number): number {
    const whole = Math.floor(instant / 1000) * 1000;
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(new Date(whole))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const wall = Date.UTC(
      parts.year,
      parts.month - 1,
      parts.day,
      parts.hour,
      parts.minute,
      parts.second,
    );
    return wall - whole;
  }

  /** The smallest offset around `instant` (a day either side covers any transition). */
  minOffsetAround(instant: number): number {
    return Math.min(
      this.offsetAt(instant - DAY_MS),
      this.offsetAt(instant),
      this.offsetAt(instant + DAY_MS),
    );
  }

  /**
   * The instant of wall time `wall`: the earliest when the zone repeats it,
   * the end of the gap when the zone skips it.
   */
  instantOf(wall: number): number {
    const before = this.offsetAt(wall - DAY_MS);
    const after = this.offsetAt(wall + DAY_MS);
    const valid = [...new Set([before, after])]
      .map((offset) => wall - offset)
      .filter((instant) => instant + this.offsetAt(instant) === wall);
    if (valid.length > 0) return Math.min(...valid);
    // Skipped: the clock jumped from the `before` offset to the `after` one in
    // between; the first instant with the new offset is where the gap ends.
    let low = wall - after;
    let high = wall - before;
    while (high - low > 1000) {
      const middle = Math.floor((low + high) / 2000) * 1000;
      if (this.offsetAt(middle) === before) low = middle;
      else high = middle;
    }
    return high;
  }
}
