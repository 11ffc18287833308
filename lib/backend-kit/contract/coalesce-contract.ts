import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { TaskUniqueness } from '../../core/unique-key';
import type { RetentionOptions } from '../../core/retention';
import { passUntil } from './maintenance-passes';
import { readyRecord, type ReadyRecordFields } from './ready-record';
import type { ContractRunner } from './contract-runner';

/** What the concurrent-enqueue cases need of the suite that runs them. */
export interface CoalesceContractSubject {
  backend: TaskBackend;
  alias: string;
  /** A backend of its own, with these retention limits (same alias rules). */
  build(overrides: { retention: RetentionOptions }): Promise<TaskBackend>;
}

/** Each call's own outcome: the record it got, or the error it was refused with. */
const settle = (calls: Promise<TaskRecord>[]): Promise<(TaskRecord | Error)[]> =>
  Promise.all(calls.map((call) => call.catch((error: Error) => error)));

/**
 * Single enqueues made at once (in one tick): a store may take them in one
 * atomic step (Redis, SQLite), but each caller gets what its enqueue alone
 * would have got, decided in call order. Part of describeBackendContract,
 * run on every backend.
 */
export function describeConcurrentEnqueues(
  t: ContractRunner,
  subject: () => CoalesceContractSubject,
): void {
  const { describe, it, expect } = t;
  describe('concurrent enqueues', () => {
    const record = (fields: ReadyRecordFields = {}): TaskRecord =>
      readyRecord(subject().alias, { name: 'contract.echo', ...fields });
    const keyed = (unique: TaskUniqueness, fields: ReadyRecordFields = {}): TaskRecord => {
      const made = record(fields);
      return { ...made, task: { ...made.task, unique } };
    };
    const acquireAll = (backend: TaskBackend): Promise<TaskRecord[]> =>
      backend.leases.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0, max: 200 });
    const readyIds = async (backend: TaskBackend): Promise<string[]> =>
      (await backend.reads.peek('default', 'ready', 200)).map((stored) => stored.id);

    it('gives each of 100 its own stored record, and keeps their order within a priority', async () => {
      const { backend } = subject();
      // Two priorities interleaved: each keeps the order of its calls.
      const records = Array.from({ length: 100 }, (_, i) =>
        record({ args: [i], priority: i % 2 === 0 ? 0 : 5 }),
      );
      const stored = await Promise.all(records.map((sent) => backend.tasks.enqueue(sent)));
      expect(stored).toEqual(records);
      for (const sent of records.slice(0, 3)) {
        await expect(backend.tasks.getResult(sent.id)).resolves.toEqual(sent);
      }
      const acquired = await acquireAll(backend);
      const odd = records.filter((_, i) => i % 2 === 1);
      const even = records.filter((_, i) => i % 2 === 0);
      expect(acquired.map((taken) => taken.id)).toEqual([...odd, ...even].map((r) => r.id));
    });

    it('stores a bulk made after single enqueues of the same tick after them', async () => {
      const { backend } = subject();
      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => record({ args: [name] }));
      await Promise.all([
        backend.tasks.enqueue(a),
        backend.tasks.enqueueMany([b, c]),
        backend.tasks.enqueue(d),
      ]);
      const acquired = await acquireAll(backend);
      expect(acquired.map((taken) => taken.args[0])).toEqual(['a', 'b', 'c', 'd']);
    });

    it('fails one task the backend cannot take alone', async () => {
      const { backend } = subject();
      const records = Array.from({ length: 10 }, (_, i) =>
        record({ args: [i], queue: i === 4 ? 'no-such-queue' : 'default' }),
      );
      const outcomes = await settle(records.map((sent) => backend.tasks.enqueue(sent)));
      expect(outcomes[4]).toBeInstanceOf(InvalidTaskError);
      const others = records.filter((_, i) => i !== 4);
      expect(outcomes.filter((_, i) => i !== 4)).toEqual(others);
      await expect(readyIds(backend)).resolves.toEqual(others.map((r) => r.id));
    });

    it('refuses only the task whose id is stored, with the stored task', async () => {
      const { backend } = subject();
      const first = await backend.tasks.enqueue(record({ id: 'order-7', args: ['first'] }));
      const records = Array.from({ length: 10 }, (_, i) =>
        record(i === 6 ? { id: 'order-7', args: ['again'] } : { args: [i] }),
      );
      const outcomes = await settle(records.map((sent) => backend.tasks.enqueue(sent)));
      expect(outcomes[6]).toBeInstanceOf(TaskAlreadyExistsError);
      const { existing } = outcomes[6] as TaskAlreadyExistsError;
      expect(existing).toMatchObject({ id: first.id, args: ['first'] });
      expect(existing.status).toBe(TaskResultStatus.READY);
      const others = records.filter((_, i) => i !== 6);
      expect(outcomes.filter((_, i) => i !== 6)).toEqual(others);
      await expect(readyIds(backend)).resolves.toEqual([first, ...others].map((r) => r.id));
    });

    it('stores the first of two with one id and refuses the second, as one by one', async () => {
      const { backend } = subject();
      const [a, b] = [record({ id: 'twice', args: ['a'] }), record({ id: 'twice', args: ['b'] })];
      const outcomes = await settle([backend.tasks.enqueue(a), backend.tasks.enqueue(b)]);
      expect(outcomes[0]).toEqual(a);
      expect(outcomes[1]).toBeInstanceOf(TaskAlreadyExistsError);
      expect((outcomes[1] as TaskAlreadyExistsError).existing.args).toEqual(['a']);
      await expect(backend.tasks.getResult('twice')).resolves.toMatchObject({ args: ['a'] });
    });

    it('decides unique keys as if the calls came one by one, a refused one taking no key', async () => {
      const { backend } = subject();
      const unique: TaskUniqueness = { key: 'user-42', mode: 'unfinished' };
      const taken = await backend.tasks.enqueue(record({ id: 'taken' }));
      const sent = [
        keyed(unique, { id: taken.id }),
        keyed(unique, { args: ['a'] }),
        record({ args: ['plain'] }),
        keyed(unique, { args: ['c'] }),
      ];
      const outcomes = await settle(sent.map((one) => backend.tasks.enqueue(one)));
      expect(outcomes[0]).toBeInstanceOf(TaskAlreadyExistsError);
      expect(outcomes[1]).toEqual(sent[1]);
      expect(outcomes[2]).toEqual(sent[2]);
      expect(outcomes[3]).toMatchObject({ id: sent[1].id, args: ['a'] });
      await expect(readyIds(backend)).resolves.toEqual([taken.id, sent[1].id, sent[2].id]);
    });

    it('lets a later debounce replace an earlier one of the same tick', async () => {
      const { backend } = subject();
      const unique: TaskUniqueness = { key: 'digest', mode: 'debounce', ttlMs: 60_000 };
      const runAfter = new Date(Date.now() + 60_000);
      const [a, b] = [
        keyed(unique, { args: ['a'], runAfter }),
        keyed(unique, { args: ['b'], runAfter }),
      ];
      const [first, second] = await Promise.all([
        backend.tasks.enqueue(a),
        backend.tasks.enqueue(b),
      ]);
      expect(first).toEqual(a);
      expect(second).toMatchObject({ id: a.id, args: ['b'] });
      const deferred = await backend.reads.peek('default', 'deferred', 10);
      expect(deferred.map((stored) => [stored.id, stored.args])).toEqual([[a.id, ['b']]]);
    });

    it('refuses only the task whose window holds a key with its task gone', async () => {
      const backend = await subject().build({ retention: { successful: { maxAgeMs: 1 } } });
      const unique: TaskUniqueness = { key: 'report', mode: 'window', ttlMs: 60_000 };
      const holder = await backend.tasks.enqueue(keyed(unique));
      const [running] = await acquireAll(backend);
      await backend.leases.acknowledge([
        { ...running, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue: 1 },
      ]);
      await passUntil(backend, 'trimmed', 1);
      const plain = record({ args: ['plain'] });
      const outcomes = await settle([
        backend.tasks.enqueue(keyed(unique)),
        backend.tasks.enqueue(plain),
      ]);
      expect(outcomes[0]).toBeInstanceOf(UniqueKeyHeldError);
      expect(outcomes[0]).toMatchObject({ key: 'report', holderId: holder.id });
      expect(outcomes[1]).toEqual(plain);
      await expect(readyIds(backend)).resolves.toEqual([plain.id]);
    });
  });
}
