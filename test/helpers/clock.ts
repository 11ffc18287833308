/** Everything but Date: timers, ticks and microtasks stay real, so awaited events still arrive. */
const REAL: FakeTimersConfig['doNotFake'] = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

/**
 * Sets the wall clock (Date only) to `now`, from where it moves on with real
 * time; `jest.useRealTimers()` puts it back. For state that a real backend
 * stamps with its own clock (a lease taken minutes ago, a result past its
 * TTL). Not for a test whose timers are already fake: it replaces them.
 */
export function setWallClock(now: Date | number): void {
  jest.useFakeTimers({ now, advanceTimers: true, doNotFake: REAL });
}

/** Runs `step` with the wall clock at `when`, then puts the real clock back. */
export async function atWallClock<T>(when: Date | number, step: () => Promise<T>): Promise<T> {
  setWallClock(when);
  try {
    return await step();
  } finally {
    jest.useRealTimers();
  }
}
