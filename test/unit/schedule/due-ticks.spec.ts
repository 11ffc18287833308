import { dueTicks, type ResolvedCatchUp } from '../../../lib/schedule/due-ticks';
import { TickSequence } from '../../../lib/schedule/tick-sequence';

const MINUTE = 60_000;
const everyMinute = new TickSequence({ every: MINUTE });
const onTime: ResolvedCatchUp = { windowMs: 5 * MINUTE, missed: 'latest', limit: 10 };
const T = Date.parse('2026-01-01T12:00:00Z');

describe('dueTicks', () => {
  it('enqueues nothing before the cursor is due', () => {
    expect(dueTicks(everyMinute, T + MINUTE, T, onTime)).toEqual({
      ticks: [],
      nextCursorMs: T + MINUTE,
    });
  });

  it('enqueues the due tick and moves the cursor to the next one', () => {
    expect(dueTicks(everyMinute, T, T + 500, onTime)).toEqual({
      ticks: [T],
      nextCursorMs: T + MINUTE,
    });
  });

  it('enqueues every tick within the catch-up window, each once', () => {
    const due = dueTicks(everyMinute, T, T + 3 * MINUTE, onTime);
    expect(due).toEqual({
      ticks: [T, T + MINUTE, T + 2 * MINUTE, T + 3 * MINUTE],
      nextCursorMs: T + 4 * MINUTE,
    });
    // The next pass starts from the moved cursor: nothing is enqueued twice.
    expect(dueTicks(everyMinute, due.nextCursorMs as number, T + 3 * MINUTE, onTime).ticks).toEqual(
      [],
    );
  });

  it('of ticks older than the window enqueues only the latest by default', () => {
    // Down for an hour: the ticks of the last 5 minutes are on time, the others missed.
    const now = T + 60 * MINUTE;
    expect(dueTicks(everyMinute, T, now, onTime).ticks).toEqual([
      T + 54 * MINUTE,
      T + 55 * MINUTE,
      T + 56 * MINUTE,
      T + 57 * MINUTE,
      T + 58 * MINUTE,
      T + 59 * MINUTE,
      T + 60 * MINUTE,
    ]);
  });

  it("with missed: 'all' enqueues the latest `limit` missed ticks", () => {
    const now = T + 60 * MINUTE;
    const all: ResolvedCatchUp = { windowMs: 0, missed: 'all', limit: 3 };
    expect(dueTicks(everyMinute, T, now, all).ticks).toEqual([
      T + 57 * MINUTE,
      T + 58 * MINUTE,
      T + 59 * MINUTE,
      T + 60 * MINUTE,
    ]);
  });

  it('finds the latest missed tick of a cursor left years behind without walking every tick', () => {
    const secondly = new TickSequence({ cron: '* * * * * *', timezone: 'UTC' });
    const started = Date.now();
    const due = dueTicks(secondly, T - 3 * 365 * 86_400_000, T, {
      windowMs: 0,
      missed: 'latest',
      limit: 1,
    });
    expect(due.ticks).toEqual([T - 1000, T]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('leaves on-time ticks beyond the per-pass cap due for the next pass', () => {
    const due = dueTicks(everyMinute, T, T + 10 * MINUTE, { ...onTime, windowMs: 20 * MINUTE }, 4);
    expect(due).toEqual({
      ticks: [T, T + MINUTE, T + 2 * MINUTE, T + 3 * MINUTE],
      nextCursorMs: T + 4 * MINUTE,
    });
  });

  it('gives the same ticks to every pass that read the same cursor (racing pools agree)', () => {
    const berlin = new TickSequence({ cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    const cursor = Date.parse('2026-03-29T01:00:00Z');
    const first = dueTicks(berlin, cursor, cursor + 10_000, onTime);
    const second = dueTicks(berlin, cursor, cursor + 20_000, onTime);
    expect(first).toEqual(second);
    expect(first.ticks).toEqual([cursor]);
  });
});
