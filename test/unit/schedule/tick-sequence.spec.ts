import { TickSequence } from '../../../lib/schedule/tick-sequence';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The ticks of `sequence` after `from` up to `until`, as ISO strings. */
function ticksBetween(sequence: TickSequence, from: string, until: string): string[] {
  const ticks: string[] = [];
  for (let tick = sequence.nextAfter(at(from)); tick !== null && tick <= at(until);) {
    ticks.push(iso(tick) as string);
    tick = sequence.nextAfter(tick);
  }
  return ticks;
}

describe('TickSequence', () => {
  describe('a daily 02:30 in Europe/Berlin across the 2026 changes', () => {
    const daily = new TickSequence({ cron: '30 2 * * *', timezone: 'Europe/Berlin' });

    it('ticks once on the spring-forward day, at 03:00, when the clock skips 02:30', () => {
      expect(ticksBetween(daily, '2026-03-27T12:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
        '2026-03-28T01:30:00.000Z', // 02:30 CET
        '2026-03-29T01:00:00.000Z', // 03:00 CEST: the gap's end
        '2026-03-30T00:30:00.000Z', // 02:30 CEST
      ]);
    });

    it('ticks once on the fall-back day, at the first 02:30', () => {
      expect(ticksBetween(daily, '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
        '2026-10-25T00:30:00.000Z', // 02:30 CEST; the second 02:30 (CET) does not tick
        '2026-10-26T01:30:00.000Z', // 02:30 CET
      ]);
    });

    it('does not tick again during the repeated hour after its first 02:30', () => {
      expect(iso(daily.nextAfter(at('2026-10-25T01:15:00Z')))).toBe('2026-10-26T01:30:00.000Z');
      expect(iso(daily.nextAfter(at('2026-10-25T00:30:00Z')))).toBe('2026-10-26T01:30:00.000Z');
    });
  });

  it('ticks the wall times of a skipped hour once, at its end', () => {
    const thrice = new TickSequence({ cron: '0,20,40 2 * * *', timezone: 'Europe/Berlin' });
    expect(ticksBetween(thrice, '2026-03-28T23:00:00Z', '2026-03-29T23:00:00Z')).toEqual([
      '2026-03-29T01:00:00.000Z',
    ]);
  });

  it('ticks the wall times of a repeated hour once each, in its first pass', () => {
    const thrice = new TickSequence({ cron: '0,20,40 2 * * *', timezone: 'Europe/Berlin' });
    expect(ticksBetween(thrice, '2026-10-24T23:00:00Z', '2026-10-25T23:00:00Z')).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:20:00.000Z',
      '2026-10-25T00:40:00.000Z',
    ]);
  });

  it('reads a 6-field expression with seconds first', () => {
    const tenSeconds = new TickSequence({ cron: '*/10 * * * * *', timezone: 'UTC' });
    expect(ticksBetween(tenSeconds, '2026-01-01T00:00:00.500Z', '2026-01-01T00:00:30Z')).toEqual([
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:30.000Z',
    ]);
  });

  it('reads the expression in its zone', () => {
    const nine = new TickSequence({ cron: '0 9 * * 1', timezone: 'America/New_York' });
    // Monday 2026-01-05 09:00 EST = 14:00 UTC.
    expect(iso(nine.nextAfter(at('2026-01-01T00:00:00Z')))).toBe('2026-01-05T14:00:00.000Z');
  });

  it('ticks a fixed interval at its multiples since the epoch, strictly after the instant', () => {
    const minute = new TickSequence({ every: 60_000 });
    expect(iso(minute.nextAfter(at('2026-01-01T00:00:30Z')))).toBe('2026-01-01T00:01:00.000Z');
    expect(iso(minute.nextAfter(at('2026-01-01T00:01:00Z')))).toBe('2026-01-01T00:02:00.000Z');
  });

  it('has no next tick for an expression that never matches', () => {
    expect(new TickSequence({ cron: '0 0 30 2 *', timezone: 'UTC' }).nextAfter(0)).toBeNull();
  });
});
