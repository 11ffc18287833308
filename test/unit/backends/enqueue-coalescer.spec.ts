import { EnqueueCoalescer, type EnqueueOutcome } from '../../../lib/backends/enqueue-coalescer';
import { BackendUnavailableError } from '../../../lib/core/errors/backend-unavailable.error';
import { TaskAlreadyExistsError } from '../../../lib/core/errors/task-already-exists.error';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { readyRecord } from '../../helpers/ready-record';

/** A store that records each batch it is handed; `decide` says each record's outcome. */
function recordingStore(decide: (record: TaskRecord) => EnqueueOutcome = (record) => record) {
  const batches: string[][] = [];
  const storeEach = async (records: readonly TaskRecord[]): Promise<EnqueueOutcome[]> => {
    batches.push(records.map((record) => record.id));
    return records.map(decide);
  };
  return { batches, storeEach };
}

const record = (id: string): TaskRecord => readyRecord('a', { id, args: [id] });

/** Resolves after the current turn of the event loop (every tick and microtask before it). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('EnqueueCoalescer', () => {
  it('sends the calls of one tick as one batch, in call order, each getting its own record', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    const ids = ['a', 'b', 'c', 'd'];
    const stored = await Promise.all(ids.map((id) => coalescer.enqueue(record(id))));
    expect(batches).toEqual([ids]);
    expect(stored.map((one) => one.id)).toEqual(ids);
  });

  it('sends a lone call before the event loop turns: no timer stands in its way', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const pending = coalescer.enqueue(record('alone'));
    await Promise.resolve();
    // Not sent within the caller's own microtask: later calls of the tick may still join.
    expect(batches).toEqual([]);
    await pending;
    expect(batches).toEqual([['alone']]);
    expect(turned).toBe(false);
  });

  it('gathers callers at different promise depths of one tick', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    const deep = async (id: string, depth: number): Promise<TaskRecord> => {
      for (let i = 0; i < depth; i++) await Promise.resolve();
      return coalescer.enqueue(record(id));
    };
    await Promise.all([deep('a', 0), deep('b', 3), deep('c', 10)]);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('gathers the next calls of callers one reply woke into one batch again', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    await Promise.all(
      ['x', 'y', 'z'].map(async (caller) => {
        for (let i = 0; i < 3; i++) await coalescer.enqueue(record(`${caller}${i}`));
      }),
    );
    expect(batches).toEqual([
      ['x0', 'y0', 'z0'],
      ['x1', 'y1', 'z1'],
      ['x2', 'y2', 'z2'],
    ]);
  });

  it('sends calls of later turns in batches of their own', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    const first = coalescer.enqueue(record('a'));
    await nextTurn();
    await Promise.all([first, coalescer.enqueue(record('b'))]);
    expect(batches).toEqual([['a'], ['b']]);
  });

  it('sends what it gathered at once when flushed, and nothing when it gathered nothing', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    coalescer.flush();
    const pending = [coalescer.enqueue(record('a')), coalescer.enqueue(record('b'))];
    coalescer.flush();
    expect(batches).toEqual([['a', 'b']]);
    await Promise.all(pending);
    expect(batches).toEqual([['a', 'b']]);
  });

  it('caps a batch at its largest size, the rest following in order', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach, 2);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => coalescer.enqueue(record(id))));
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('sends a full batch at once, within the tick, while the rest of the tick still gathers', () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach, 2);
    const pending = ['a', 'b', 'c'].map((id) => coalescer.enqueue(record(id)));
    // Synchronously, before any microtask: the full batch is already with the store.
    expect(batches).toEqual([['a', 'b']]);
    return Promise.all(pending).then(() => expect(batches).toEqual([['a', 'b'], ['c']]));
  });

  it('starts a new batch at an id already in the current one', async () => {
    const { batches, storeEach } = recordingStore();
    const coalescer = new EnqueueCoalescer(storeEach);
    await Promise.all(['a', 'b', 'a', 'c'].map((id) => coalescer.enqueue(record(id))));
    expect(batches).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
  });

  it('rejects only the caller whose record the store refused', async () => {
    const refusal = new TaskAlreadyExistsError('taken', undefined as never);
    const { storeEach } = recordingStore((one) => (one.id === 'b' ? refusal : one));
    const coalescer = new EnqueueCoalescer(storeEach);
    const outcomes = await Promise.all(
      ['a', 'b', 'c'].map((id) => coalescer.enqueue(record(id)).catch((error: Error) => error)),
    );
    expect(outcomes.map((one) => (one instanceof Error ? one : one.id))).toEqual([
      'a',
      refusal,
      'c',
    ]);
  });

  it('rejects every caller of a batch whose store step failed, thrown or rejected', async () => {
    const failure = new BackendUnavailableError('down');
    for (const storeEach of [
      () => Promise.reject(failure),
      () => {
        throw failure;
      },
    ]) {
      const coalescer = new EnqueueCoalescer(storeEach);
      const outcomes = await Promise.all(
        ['a', 'b'].map((id) => coalescer.enqueue(record(id)).catch((error: unknown) => error)),
      );
      expect(outcomes).toEqual([failure, failure]);
    }
  });
});
