import { CANCEL_IDLE_AFTER_MS } from '../../../lib/core/cancel-delivery';
import type { TaskBackend } from '../../../lib/core/task-backend.interface';
import { CancelWatch } from '../../../lib/worker/child/cancel-watch';

const EVERY_MS = 250;

/** A watch on a store whose reads are counted (it never has a request), on fake timers and clock. */
function setup() {
  let clock = 0;
  let busy = false;
  const reads = { count: 0 };
  const backend = {
    control: {
      cancelRequests: () => {
        reads.count++;
        return Promise.resolve([]);
      },
      dropCancelRequests: () => Promise.resolve(),
    },
  } as unknown as TaskBackend;
  const watch = new CancelWatch({
    backend,
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
    poolId: 'pool-1',
    everyMs: EVERY_MS,
    requestTtlMs: 60_000,
    freshMs: 1_000,
    cancel: () => true,
    busy: () => busy,
    now: () => clock,
  });
  /** Moves the clock and the timers on by `ms`, letting each read settle. */
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += EVERY_MS) {
      clock += EVERY_MS;
      await jest.advanceTimersByTimeAsync(EVERY_MS);
    }
  };
  return { watch, reads, pass, setBusy: (value: boolean) => (busy = value) };
}

describe('CancelWatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('stops reading once its child held nothing for CANCEL_IDLE_AFTER_MS, and reads again once it holds a task', async () => {
    const { watch, reads, pass, setBusy } = setup();
    watch.start();
    await pass(CANCEL_IDLE_AFTER_MS);
    const whileFresh = reads.count;
    expect(whileFresh).toBeGreaterThan(0);
    await pass(10_000);
    expect(reads.count).toBe(whileFresh);
    // Too old to tell: a leased task would read before it starts.
    expect(watch.mayStart('a')).toBeNull();

    setBusy(true);
    await pass(EVERY_MS * 4);
    expect(reads.count).toBe(whileFresh + 4);
    expect(watch.mayStart('a')).toBe(true);
    watch.stop();
  });

  it('reads every period while its child holds something', async () => {
    const { watch, reads, pass, setBusy } = setup();
    setBusy(true);
    watch.start();
    await pass(CANCEL_IDLE_AFTER_MS * 2);
    expect(reads.count).toBe((CANCEL_IDLE_AFTER_MS * 2) / EVERY_MS);
    watch.stop();
  });
});
