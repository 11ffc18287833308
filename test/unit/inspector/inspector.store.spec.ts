import type { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { InspectorStore } from '../../../lib/inspector/inspector.store';
import { setWallClock } from '../../helpers/clock';
import { leaseTo, memoryBackend, outage } from '../../helpers/memory-backend';
import { readyRecord } from '../../helpers/ready-record';
import { waitFor } from '../../helpers/wait-for';

/**
 * A real MemoryBackend `alias` serving `queues`, holding `count` ready tasks
 * in the first of them: `${prefix}-0`, `${prefix}-1`, … in the order it serves them.
 */
async function backendWithReady(
  alias: string,
  count: number,
  { prefix = 'r', queues = ['default'] }: { prefix?: string; queues?: string[] } = {},
): Promise<MemoryBackend> {
  const backend = memoryBackend({}, { alias, queues });
  await backend.tasks.enqueueMany(
    Array.from({ length: count }, (_, i) =>
      readyRecord(alias, { id: `${prefix}-${i}`, queue: queues[0], enqueuedAt: new Date(0) }),
    ),
  );
  return backend;
}

/** A worker takes the `count` best ready tasks of `default`; says which it took. */
async function takeReady(backend: MemoryBackend, count: number): Promise<string[]> {
  const taken = await backend.leases.acquire(['default'], {
    workerId: 'w:1-0',
    max: count,
    timeoutMs: 0,
  });
  return taken.map((record) => record.id);
}

describe('inspector store', () => {
  let store: InspectorStore | undefined;
  afterEach(() => {
    store?.stop();
    jest.useRealTimers();
  });

  const open = (backends: MemoryBackend[], options = {}) => {
    store = new InspectorStore({ backends, refreshIntervalMs: 2000, pageSize: 50, ...options });
    store.start();
    return store;
  };

  it('reads rows by peek with a limit and counts by telemetry, never a whole set', async () => {
    const backend = await backendWithReady('default', 120);
    const peek = jest.spyOn(backend.reads, 'peek');
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded && s.getState().telemetry, {
      what: 'first reads',
    });
    expect(s.getState().tasks).toHaveLength(50);
    expect(peek.mock.calls).toEqual([['default', 'ready', 50]]);
    // All 120 are counted, though only 50 were read.
    expect(s.getState().telemetry?.queues.default.counts.ready).toBe(120);
  });

  it('refreshes counts on its interval and the list only on r or a tab or queue change', async () => {
    const backend = await backendWithReady('default', 3, { queues: ['default', 'emails'] });
    const telemetry = jest.spyOn(backend.reads, 'telemetry');
    const peek = jest.spyOn(backend.reads, 'peek');
    jest.useFakeTimers();
    try {
      const s = open([backend]);
      await jest.advanceTimersByTimeAsync(0);
      expect(telemetry).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(6000);
      expect(telemetry).toHaveBeenCalledTimes(4);
      expect(peek).toHaveBeenCalledTimes(1);
      s.press({ input: 'r' });
      await jest.advanceTimersByTimeAsync(0);
      expect(peek).toHaveBeenCalledTimes(2);
      s.press({ input: '5' });
      await jest.advanceTimersByTimeAsync(0);
      expect(peek).toHaveBeenLastCalledWith('default', 'failed', 50);
      s.press({ input: '', tab: true, shift: true }); // tasks -> queues
      expect(s.getState().focus).toBe('queues');
      s.press({ input: 'j' });
      await jest.advanceTimersByTimeAsync(0);
      expect(peek).toHaveBeenLastCalledWith('emails', 'failed', 50);
    } finally {
      store?.stop();
      jest.useRealTimers();
    }
  });

  it('reads which queues are paused with the counts, and sees a resume on its next refresh', async () => {
    const backend = await backendWithReady('default', 2, { queues: ['default', 'emails'] });
    await backend.control.pauseQueue('emails');
    jest.useFakeTimers();
    try {
      const s = open([backend]);
      await jest.advanceTimersByTimeAsync(0);
      expect(s.getState().paused).toEqual(['emails']);
      await backend.control.resumeQueue('emails');
      await jest.advanceTimersByTimeAsync(2000);
      expect(s.getState().paused).toEqual([]);
    } finally {
      store?.stop();
      jest.useRealTimers();
    }
  });

  it('keeps the selected task across a refresh when it still exists', async () => {
    const backend = await backendWithReady('default', 5);
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded);
    s.press({ input: 'j' });
    s.press({ input: '', downArrow: true });
    expect(s.getState().tasks[s.getState().taskIndex].id).toBe('r-2');
    // Two tasks ahead of it were taken by workers: it moved up the list.
    expect(await takeReady(backend, 2)).toEqual(['r-0', 'r-1']);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().tasks.length === 3, { what: 'the refreshed list' });
    expect(s.getState().taskIndex).toBe(0);
    // Now it is gone: the cursor stays where it was, within the list.
    expect(await takeReady(backend, 1)).toEqual(['r-2']);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().tasks.length === 2);
    expect(s.getState().tasks[s.getState().taskIndex].id).toBe('r-3');
  });

  it('opens the detail on Enter, refreshes it on r and closes it on Escape', async () => {
    const resultTtl = 60_000;
    const backend = memoryBackend({ resultTtl }, { alias: 'default' });
    const [running] = await leaseTo(backend, 'w:1-0', readyRecord('default', { id: 't-1' }));
    const s = open([backend]);
    s.press({ input: '1' });
    await waitFor(() => s.getState().tasks.length === 1);
    s.press({ input: '', return: true });
    expect(s.getState().detail?.id).toBe('t-1');
    expect(s.getState().focus).toBe('detail');
    const finished = {
      ...running,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: 1,
    };
    expect(await backend.leases.acknowledge([finished])).toEqual(['acknowledged']);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().detail?.status === TaskResultStatus.SUCCESSFUL);
    // A minute on, the result has outlived its TTL and the backend no longer has it.
    setWallClock(Date.now() + resultTtl + 1000);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().detailNote, { what: 'the expired note' });
    expect(s.getState().detailNote).toContain('t-1 no longer exists');
    s.press({ input: '', escape: true });
    expect(s.getState().detail).toBeNull();
    expect(s.getState().focus).toBe('tasks');
  });

  it('says the backend is unreachable, keeps retrying, and recovers when it answers', async () => {
    const backend = await backendWithReady('main', 2);
    const down = outage(backend, 'connect ECONNREFUSED 127.0.0.1:6379');
    const s = open([backend], { refreshIntervalMs: 50 });
    await waitFor(() => s.getState().error, { what: 'the unreachable message' });
    expect(s.getState().error).toContain('Backend "main" did not answer: connect ECONNREFUSED');
    expect(s.getState().tasksLoaded).toBe(false);
    down.end();
    await waitFor(() => s.getState().error === null && s.getState().tasksLoaded, {
      what: 'recovery',
    });
    expect(s.getState().tasks.map((t) => t.id)).toEqual(['r-0', 'r-1']);
  });

  it('counts a read that hangs as unreachable after the read timeout', async () => {
    const backend = memoryBackend({}, { alias: 'slow' });
    jest.spyOn(backend.reads, 'telemetry').mockReturnValue(new Promise(() => undefined));
    const s = open([backend], { readTimeoutMs: 30 });
    await waitFor(() => s.getState().error, { what: 'the timeout message' });
    expect(s.getState().error).toMatch(
      /Backend "slow" did not answer: telemetry on "slow" did not answer within 30 ms/,
    );
  });

  it('switches backends from the selector and reads the new one', async () => {
    const one = await backendWithReady('one', 1, { prefix: 'one' });
    const two = await backendWithReady('two', 2, { prefix: 'two', queues: ['jobs'] });
    const s = open([one, two], { initialAlias: 'one' });
    expect(s.panes()).toEqual(['backends', 'queues', 'tasks']);
    await waitFor(() => s.getState().tasksLoaded);
    s.press({ input: '', tab: true }); // tasks -> backends
    expect(s.getState().focus).toBe('backends');
    s.press({ input: 'j' });
    expect(s.getState().queues).toEqual(['jobs']);
    await waitFor(() => s.getState().tasks.length === 2);
    expect(s.getState().tasks[0].id).toBe('two-0');
  });

  it('takes keys that arrive in one chunk one by one', async () => {
    const backend = await backendWithReady('default', 5);
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded);
    expect(s.press({ input: 'jjj' })).toBe('none');
    expect(s.getState().taskIndex).toBe(3);
    expect(s.press({ input: 'kq' })).toBe('quit');
    expect(s.getState().taskIndex).toBe(2);
  });

  it('shows the first counts and rows in one update, and answers keys meanwhile', async () => {
    const backend = await backendWithReady('default', 3);
    const s = new InspectorStore({ backends: [backend] });
    store = s;
    const seen: { tasks: number; counts: boolean }[] = [];
    s.subscribe(() =>
      seen.push({ tasks: s.getState().tasks.length, counts: s.getState().telemetry !== null }),
    );
    s.start();
    s.press({ input: '', tab: true });
    expect(seen).toHaveLength(1); // the key, before any read answered
    await waitFor(() => seen.length === 2);
    expect(seen[1]).toEqual({ tasks: 3, counts: true });
  });

  it('quits on q and does nothing else', () => {
    const s = open([memoryBackend({}, { alias: 'default' })]);
    expect(s.press({ input: 'q' })).toBe('quit');
    expect(s.press({ input: 'x' })).toBe('none');
  });
});
