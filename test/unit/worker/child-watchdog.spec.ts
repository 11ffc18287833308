import { ChildWatchdog } from '../../../lib/worker/pool/child-watchdog';

describe('ChildWatchdog', () => {
  let now = 0;
  const wedged: [number, number, number][] = [];
  const watchdog = (overrides: { ceilingMs?: number } = {}) => {
    now = 0;
    wedged.length = 0;
    return new ChildWatchdog({
      timeoutMs: 30_000,
      stopGraceMs: 10_000,
      ceilingMs: overrides.ceilingMs ?? 3_600_000,
      checkEveryMs: 1000,
      onWedged: (pid, silentForMs, boundMs) => wedged.push([pid, silentForMs, boundMs]),
      now: () => now,
    });
  };
  const check = (dog: ChildWatchdog) => (dog as unknown as { check(): void }).check();

  it('reports a child once, when it has been silent past the timeout', () => {
    const dog = watchdog();
    dog.beat(1, 0);
    dog.beat(2, 0);
    now = 30_000;
    check(dog);
    expect(wedged).toEqual([]);
    dog.beat(2, 0);
    now = 30_001;
    check(dog);
    check(dog);
    expect(wedged).toEqual([[1, 30_001, 30_000]]);
    expect(dog.wedged).toBe(1);
    dog.forget(1);
    expect(dog.wedged).toBe(0);
  });

  it('waits as long as a running task declared, but never past the ceiling', () => {
    const dog = watchdog({ ceilingMs: 100_000 });
    dog.beat(1, 60_000);
    dog.beat(2, 500_000);
    now = 60_000;
    check(dog);
    expect(wedged).toEqual([]);
    now = 100_001;
    check(dog);
    expect(wedged).toEqual([
      [1, 100_001, 60_000],
      [2, 100_001, 100_000],
    ]);
  });

  it('gives a silent child only the stop grace once the pool stops, unless a task declared more', () => {
    const dog = watchdog();
    dog.beat(1, 0);
    dog.beat(2, 20_000);
    now = 10_001;
    dog.poolStopping();
    expect(wedged).toEqual([[1, 10_001, 10_000]]);
    now = 20_001;
    check(dog);
    expect(wedged).toEqual([
      [1, 10_001, 10_000],
      [2, 20_001, 20_000],
    ]);
  });
});
