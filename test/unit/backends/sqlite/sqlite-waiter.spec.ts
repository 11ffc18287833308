import { SqliteWaiter } from '../../../../lib/backends/sqlite/sqlite-waiter';

describe('SqliteWaiter', () => {
  let waiter: SqliteWaiter;

  beforeEach(() => {
    jest.useFakeTimers();
    waiter = new SqliteWaiter();
  });

  afterEach(() => {
    waiter.close();
    jest.useRealTimers();
  });

  const settled = (promise: Promise<void>) => {
    let done = false;
    void promise.then(() => (done = true));
    return () => done;
  };

  it('ends a wait when its time is up', async () => {
    const done = settled(waiter.wait(100));
    await jest.advanceTimersByTimeAsync(99);
    expect(done()).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
    expect(waiter.pending).toBe(0);
  });

  it('ends every wait at once on notify, clearing their timers', async () => {
    const first = settled(waiter.wait(10_000));
    const second = settled(waiter.wait(10_000));
    waiter.notify();
    await Promise.resolve();
    expect([first(), second()]).toEqual([true, true]);
    expect(waiter.pending).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends a wait on abort and forgets it', async () => {
    const controller = new AbortController();
    const done = settled(waiter.wait(10_000, controller.signal));
    controller.abort();
    await Promise.resolve();
    expect(done()).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('does not wait at all once closed', async () => {
    const pending = settled(waiter.wait(10_000));
    waiter.close();
    const later = settled(waiter.wait(10_000));
    await Promise.resolve();
    expect([pending(), later()]).toEqual([true, true]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
