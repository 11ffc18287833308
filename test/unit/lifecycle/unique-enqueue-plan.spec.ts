import { UniqueKeyHeldError } from '../../../lib/core/errors/unique-key-held.error';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import type { StoredKeyHold } from '../../../lib/core/unique-enqueue-plan';
import { decideUnique, type HolderState, type TaskUniqueness } from '../../../lib/core/unique-key';
import { planUniqueEnqueue } from '../../../lib/lifecycle/unique-enqueue-plan';
import { readyRecord } from '../../helpers/ready-record';

const NOW = 1_000_000;

const keyed = (id: string, unique?: TaskUniqueness, queue = 'default'): TaskRecord => {
  const record = readyRecord('a', { id, queue, args: [id] });
  return unique ? { ...record, task: { ...record.task, unique } } : record;
};

const hold = (holder: TaskRecord | null, state: HolderState, windowEnd: number | null = null) =>
  ({ holderId: holder?.id ?? 'gone-1', windowEnd, holder, state }) satisfies StoredKeyHold;

describe('decideUnique', () => {
  it.each([
    ['unfinished', 'fresh', false, 'return'],
    ['unfinished', 'started', false, 'return'],
    ['unfinished', 'running', false, 'return'],
    ['unfinished', 'final', false, 'create'],
    ['unfinished', 'gone', false, 'create'],
    ['window', 'final', true, 'return'],
    ['window', 'gone', true, 'gone'],
    ['window', 'running', false, 'return'],
    ['window', 'final', false, 'create'],
    ['debounce', 'fresh', false, 'replace'],
    ['debounce', 'fresh', true, 'replace'],
    ['debounce', 'started', false, 'create'],
    ['debounce', 'running', false, 'create'],
    ['debounce', 'running', true, 'return'],
    ['debounce', 'final', false, 'create'],
  ] as const)('%s, holder %s, window held %s: %s', (mode, holder, windowHeld, decision) => {
    expect(decideUnique(mode, holder, windowHeld)).toBe(decision);
  });
});

describe('planUniqueEnqueue', () => {
  const unfinished: TaskUniqueness = { key: 'k', mode: 'unfinished' };
  const debounce: TaskUniqueness = { key: 'k', mode: 'debounce', ttlMs: 100 };

  it('stores records without a key as they are, and takes a free key', () => {
    const plain = keyed('p');
    const first = keyed('f', { key: 'k', mode: 'window', ttlMs: 50 });
    const plan = planUniqueEnqueue('a', [plain, first], () => undefined, NOW);
    expect(plan.returned).toEqual([plain, first]);
    expect(plan.writes).toEqual([
      { kind: 'add', record: plain },
      { kind: 'add', record: first, taken: { key: 'k', mode: 'window', windowEnd: NOW + 50 } },
    ]);
  });

  it('returns a stored holder and writes nothing for it', () => {
    const holder = keyed('h', unfinished);
    const plan = planUniqueEnqueue(
      'a',
      [keyed('x', unfinished)],
      () => hold(holder, 'running'),
      NOW,
    );
    expect(plan).toEqual({ writes: [], returned: [holder] });
  });

  it('decides a batch as one by one: later records of a key get the first, or replace it', () => {
    const [a, b, c] = [keyed('a', debounce), keyed('b', unfinished), keyed('c', debounce)];
    const plan = planUniqueEnqueue('a', [a, b, c], () => undefined, NOW);
    expect(plan.returned.map((record) => [record.id, record.args])).toEqual([
      ['a', ['a']],
      ['a', ['a']],
      ['a', ['c']],
    ]);
    // One write: the first record's task, carrying the last one's data.
    expect(plan.writes).toHaveLength(1);
    expect(plan.writes[0]).toMatchObject({ kind: 'add', record: { id: 'a', args: ['c'] } });
  });

  it('replaces a fresh stored holder in debounce mode, but not one waiting in another queue', () => {
    const holder = keyed('h', debounce);
    const replacement = keyed('x', debounce);
    const replaced = planUniqueEnqueue('a', [replacement], () => hold(holder, 'fresh'), NOW);
    expect(replaced.writes).toEqual([{ kind: 'replace', record: { ...replacement, id: 'h' } }]);
    const elsewhere = planUniqueEnqueue(
      'a',
      [keyed('y', debounce, 'emails')],
      () => hold(holder, 'fresh'),
      NOW,
    );
    expect(elsewhere.writes).toMatchObject([{ kind: 'add', record: { id: 'y' } }]);
  });

  it('refuses the whole batch, writing nothing, when a window holds a key whose task is gone', () => {
    const window: TaskUniqueness = { key: 'w', mode: 'window', ttlMs: 10 };
    const call = () =>
      planUniqueEnqueue(
        'a',
        [keyed('ok'), keyed('x', window)],
        (key) => (key === 'w' ? hold(null, 'gone', NOW + 5) : undefined),
        NOW,
      );
    expect(call).toThrow(UniqueKeyHeldError);
    expect(call).toThrow(/held by a window until 1970-01-01T00:16:40\.005Z/);
  });
});
