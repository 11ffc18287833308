import { TaskResultStatus } from '../../../lib/core';
import { InspectorStore } from '../../../lib/inspector/inspector.store';
import { waitFor } from '../../helpers/wait-for';
import { FakeInspectorBackend, taskRecord } from './fake-inspector-backend';

const ready = (n: number, prefix = 'r') =>
  Array.from({ length: n }, (_, i) => taskRecord(`${prefix}-${i}`));

describe('inspector store', () => {
  let store: InspectorStore | undefined;
  afterEach(() => store?.stop());

  const open = (backends: FakeInspectorBackend[], options = {}) => {
    store = new InspectorStore({ backends, refreshIntervalMs: 2000, pageSize: 50, ...options });
    store.start();
    return store;
  };

  it('reads rows by peek with a limit and counts by telemetry, never a whole set', async () => {
    const backend = new FakeInspectorBackend('default')
      .put('default', 'ready', ready(120))
      .claim('default', { ready: 1_000_000 });
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded && s.getState().telemetry, {
      what: 'first reads',
    });
    expect(s.getState().tasks).toHaveLength(50);
    expect(backend.peeks).toEqual([{ queue: 'default', segment: 'ready', count: 50 }]);
    expect(s.getState().telemetry?.queues.default.counts.ready).toBe(1_000_000);
  });

  it('refreshes counts on its interval and the list only on r or a tab or queue change', async () => {
    jest.useFakeTimers();
    try {
      const backend = new FakeInspectorBackend('default', ['default', 'emails']).put(
        'default',
        'ready',
        ready(3),
      );
      const s = open([backend]);
      await jest.advanceTimersByTimeAsync(0);
      expect(backend.telemetryCalls).toBe(1);
      await jest.advanceTimersByTimeAsync(6000);
      expect(backend.telemetryCalls).toBe(4);
      expect(backend.peeks).toHaveLength(1);
      s.press({ input: 'r' });
      await jest.advanceTimersByTimeAsync(0);
      expect(backend.peeks).toHaveLength(2);
      s.press({ input: '5' });
      await jest.advanceTimersByTimeAsync(0);
      expect(backend.peeks.at(-1)).toEqual({ queue: 'default', segment: 'failed', count: 50 });
      s.press({ input: '', tab: true, shift: true }); // tasks -> queues
      expect(s.getState().focus).toBe('queues');
      s.press({ input: 'j' });
      await jest.advanceTimersByTimeAsync(0);
      expect(backend.peeks.at(-1)).toEqual({ queue: 'emails', segment: 'failed', count: 50 });
    } finally {
      store?.stop();
      jest.useRealTimers();
    }
  });

  it('keeps the selected task across a refresh when it still exists', async () => {
    const backend = new FakeInspectorBackend('default').put('default', 'ready', ready(5));
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded);
    s.press({ input: 'j' });
    s.press({ input: '', downArrow: true });
    expect(s.getState().tasks[s.getState().taskIndex].id).toBe('r-2');
    // Two tasks ahead of it were taken by workers: it moved up the list.
    backend.put('default', 'ready', [taskRecord('r-2'), taskRecord('r-3'), taskRecord('r-4')]);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().tasks.length === 3, { what: 'the refreshed list' });
    expect(s.getState().taskIndex).toBe(0);
    // Now it is gone: the cursor stays where it was, within the list.
    backend.put('default', 'ready', [taskRecord('r-3'), taskRecord('r-4')]);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().tasks.length === 2);
    expect(s.getState().tasks[s.getState().taskIndex].id).toBe('r-3');
  });

  it('opens the detail on Enter, refreshes it on r and closes it on Escape', async () => {
    const running = taskRecord('t-1', { status: TaskResultStatus.RUNNING, workerIds: ['w:1-0'] });
    const backend = new FakeInspectorBackend('default').put('default', 'running', [running]);
    const s = open([backend]);
    s.press({ input: '1' });
    await waitFor(() => s.getState().tasks.length === 1);
    s.press({ input: '', return: true });
    expect(s.getState().detail?.id).toBe('t-1');
    expect(s.getState().focus).toBe('detail');
    const finished = { ...running, status: TaskResultStatus.SUCCESSFUL, returnValue: 1 };
    backend.put('default', 'running', []).put('default', 'successful', [finished]);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().detail?.status === TaskResultStatus.SUCCESSFUL);
    backend.put('default', 'successful', []);
    s.press({ input: 'r' });
    await waitFor(() => s.getState().detailNote, { what: 'the expired note' });
    expect(s.getState().detailNote).toContain('t-1 no longer exists');
    s.press({ input: '', escape: true });
    expect(s.getState().detail).toBeNull();
    expect(s.getState().focus).toBe('tasks');
  });

  it('says the backend is unreachable, keeps retrying, and recovers when it answers', async () => {
    const backend = new FakeInspectorBackend('main').put('default', 'ready', ready(2));
    backend.down = true;
    const s = open([backend], { refreshIntervalMs: 50 });
    await waitFor(() => s.getState().error, { what: 'the unreachable message' });
    expect(s.getState().error).toContain('Backend "main" did not answer: connect ECONNREFUSED');
    expect(s.getState().tasksLoaded).toBe(false);
    backend.down = false;
    await waitFor(() => s.getState().error === null && s.getState().tasksLoaded, {
      what: 'recovery',
    });
    expect(s.getState().tasks.map((t) => t.id)).toEqual(['r-0', 'r-1']);
  });

  it('counts a read that hangs as unreachable after the read timeout', async () => {
    const backend = new FakeInspectorBackend('slow');
    backend.telemetry = () => new Promise(() => undefined);
    const s = open([backend], { readTimeoutMs: 30 });
    await waitFor(() => s.getState().error, { what: 'the timeout message' });
    expect(s.getState().error).toMatch(
      /Backend "slow" did not answer: telemetry on "slow" did not answer within 30 ms/,
    );
  });

  it('switches backends from the selector and reads the new one', async () => {
    const one = new FakeInspectorBackend('one').put('default', 'ready', ready(1, 'one'));
    const two = new FakeInspectorBackend('two', ['jobs']).put('jobs', 'ready', ready(2, 'two'));
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
    const backend = new FakeInspectorBackend('default').put('default', 'ready', ready(5));
    const s = open([backend]);
    await waitFor(() => s.getState().tasksLoaded);
    expect(s.press({ input: 'jjj' })).toBe('none');
    expect(s.getState().taskIndex).toBe(3);
    expect(s.press({ input: 'kq' })).toBe('quit');
    expect(s.getState().taskIndex).toBe(2);
  });

  it('shows the first counts and rows in one update, and answers keys meanwhile', async () => {
    const backend = new FakeInspectorBackend('default').put('default', 'ready', ready(3));
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
    const s = open([new FakeInspectorBackend('default')]);
    expect(s.press({ input: 'q' })).toBe('quit');
    expect(s.press({ input: 'x' })).toBe('none');
  });
});
