import {
  OverrunWatch,
  TIMEOUT_GRACE_MIN_MS,
  timeoutGraceMs,
} from '../../../lib/worker/child/overrun-watch';

describe('timeoutGraceMs', () => {
  it('is half of max(1 s, 5% of timeoutMs): the rest of that bound is the pool stopping the child', () => {
    expect(timeoutGraceMs(3_000)).toBe(TIMEOUT_GRACE_MIN_MS);
    expect(timeoutGraceMs(60_000)).toBe(1_500);
    expect(Math.max(1_000, 0.05 * 3_600_000) / 2).toBe(timeoutGraceMs(3_600_000));
  });
});

describe('OverrunWatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = () => {
    const running = new Map<string, object>();
    const stops: [string, string][] = [];
    const watch = new OverrunWatch(
      (id, token) => running.get(id) === token,
      (id, reason) => stops.push([id, reason]),
    );
    return { running, stops, watch };
  };

  it('stops a task past its time limit plus grace, and one past its hard stop after a cancel', () => {
    const { running, stops, watch } = setup();
    const slow = {};
    const cancelled = {};
    running.set('slow', slow).set('cancelled', cancelled);
    watch.started('slow', slow, 1_000);
    watch.started('cancelled', cancelled, undefined);
    watch.cancelled('cancelled', cancelled, 300);
    jest.advanceTimersByTime(300);
    expect(stops).toEqual([['cancelled', 'cancel']]);
    jest.advanceTimersByTime(1_000 + timeoutGraceMs(1_000) - 301);
    expect(stops).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(stops).toEqual([
      ['cancelled', 'cancel'],
      ['slow', 'timeout'],
    ]);
  });

  it('stops nothing for a task that ended, nor for a later attempt of the same id', () => {
    const { running, stops, watch } = setup();
    const first = {};
    running.set('a', first);
    watch.started('a', first, 100);
    watch.ended('a');
    jest.advanceTimersByTime(10_000);
    const stale = {};
    running.set('b', {});
    watch.started('b', stale, 100);
    jest.advanceTimersByTime(10_000);
    expect(stops).toEqual([]);
  });
});
