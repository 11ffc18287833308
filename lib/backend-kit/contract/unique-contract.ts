import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import { manualRetryRecord } from '../../lifecycle/manual-retry';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { TaskUniqueness } from '../../core/unique-key';
import type { RetentionOptions } from '../../core/retention';
import { readyRecord } from './ready-record';
import { passUntil } from './maintenance-passes';
import { waitFor } from './wait-for';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import type { ContractRunner } from './contract-runner';

/** What the unique-key cases need of the suite that runs them. */
export interface UniqueContractSubject {
  backend: TaskBackend;
  alias: string;
  /** A backend of its own, with these retention limits (same alias rules). */
  build(overrides: { retention: RetentionOptions }): Promise<TaskBackend>;
}

/**
 * The contract of unique keys (`TaskDescriptor.unique`): an enqueue whose key
 * is held returns the holder in place of its record, stores nothing, and
 * the key is checked and taken in the step that stores the task, so many
 * concurrent enqueues of one key make exactly one task. Part of
 * describeBackendContract, run on every backend.
 */
export function describeUniqueKeys(t: ContractRunner, subject: () => UniqueContractSubject): void {
  const { describe, it, expect } = t;
  describe('unique keys', () => {
    const keyed = (
      unique: TaskUniqueness,
      fields: Parameters<typeof readyRecord>[1] = {},
    ): TaskRecord => {
      // As the task layer builds a debounced record: deferred by its ttl.
      const runAfter =
        unique.mode === 'debounce' ? new Date(Date.now() + (unique.ttlMs ?? 0)) : null;
      const record = readyRecord(subject().alias, { name: 'contract.echo', runAfter, ...fields });
      return { ...record, task: { ...record.task, unique } };
    };
    const acquireAll = (backend: TaskBackend): Promise<TaskRecord[]> =>
      backend.leases.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0, max: 100 });
    const succeed = (running: TaskRecord): TaskRecord => ({
      ...running,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: null,
    });
    /** Ends a task at once and trims it: its results are kept 1 ms. */
    const finishAndTrim = async (backend: TaskBackend): Promise<void> => {
      const finished = succeed((await acquireAll(backend))[0]);
      await backend.leases.acknowledge([finished]);
      await passUntil(backend, 'trimmed', 1);
    };
    const waiting = async (backend: TaskBackend): Promise<string[]> => [
      ...(await backend.reads.peek('default', 'ready', 100)).map((record) => record.id),
      ...(await backend.reads.peek('default', 'deferred', 100)).map((record) => record.id),
    ];

    describe("mode 'unfinished'", () => {
      const unique: TaskUniqueness = { key: 'user-42', mode: 'unfinished' };

      it('returns the waiting holder, its own record, and stores nothing else', async () => {
        const { backend } = subject();
        const first = await backend.tasks.enqueue(keyed(unique, { args: ['first'] }));
        const second = await backend.tasks.enqueue(keyed(unique, { args: ['second'] }));
        expect(second.id).toBe(first.id);
        expect(second.args).toEqual(['first']);
        await expect(waiting(backend)).resolves.toEqual([first.id]);
        await expect(backend.tasks.getResult(first.id)).resolves.toMatchObject({
          task: { unique },
        });
      });

      it('returns the running holder, and is free once it is final', async () => {
        const { backend } = subject();
        const first = await backend.tasks.enqueue(keyed(unique));
        const [running] = await acquireAll(backend);
        const whileRunning = await backend.tasks.enqueue(keyed(unique));
        expect(whileRunning).toMatchObject({ id: first.id, status: TaskResultStatus.RUNNING });
        await backend.leases.acknowledge([succeed(running)]);
        const after = keyed(unique, { args: ['after'] });
        await expect(backend.tasks.enqueue(after)).resolves.toMatchObject({ id: after.id });
        await expect(backend.tasks.enqueue(keyed(unique))).resolves.toMatchObject({ id: after.id });
      });

      it('keeps the key through a retry, the task being still unfinished', async () => {
        const { backend } = subject();
        const record = keyed(unique);
        const first = await backend.tasks.enqueue({
          ...record,
          task: { ...record.task, retries: 1, backoff: { type: 'fixed', delayMs: 60_000 } },
        });
        const [running] = await acquireAll(backend);
        const failed = { ...running, status: TaskResultStatus.FAILED, finishedAt: new Date() };
        await expect(
          backend.leases.retry([nextAttempt(failed, null, new Date())]),
        ).resolves.toEqual(['retried']);
        const again = await backend.tasks.enqueue(keyed(unique));
        expect(again.id).toBe(first.id);
        expect(again.task.unique).toEqual(unique);
        expect(again.workerIds).toEqual(['host:1-0']);
      });

      it('is taken back by a task retried by hand, even once a maintenance pass forgot it, unless another task holds it', async () => {
        const { backend } = subject();
        const fail = async (): Promise<TaskRecord> => {
          const [running] = await acquireAll(backend);
          const failed = { ...running, status: TaskResultStatus.FAILED, finishedAt: new Date() };
          await backend.leases.acknowledge([failed]);
          return backend.tasks.getResult(running.id);
        };
        const first = await backend.tasks.enqueue(keyed(unique));
        const failedFirst = await fail();
        // Free while it is final, and forgotten by the pass.
        await runMaintenancePass(backend);
        await expect(
          backend.control.retryFinished(failedFirst, manualRetryRecord(failedFirst)),
        ).resolves.toBe(true);
        await expect(backend.tasks.enqueue(keyed(unique))).resolves.toMatchObject({ id: first.id });
        // Another task took the key while the first had ended: the retry leaves it to that one.
        const failedAgain = await fail();
        const other = keyed(unique);
        await expect(backend.tasks.enqueue(other)).resolves.toMatchObject({ id: other.id });
        await backend.control.retryFinished(failedAgain, manualRetryRecord(failedAgain));
        await expect(backend.tasks.enqueue(keyed(unique))).resolves.toMatchObject({ id: other.id });
      });

      it('is free once its holder is trimmed away', async () => {
        const backend = await subject().build({ retention: { successful: { maxAgeMs: 1 } } });
        const first = await backend.tasks.enqueue(keyed(unique));
        await finishAndTrim(backend);
        await expect(backend.tasks.getResult(first.id)).rejects.toThrow(TaskResultDoesNotExist);
        const next = keyed(unique);
        await expect(backend.tasks.enqueue(next)).resolves.toMatchObject({ id: next.id });
      });

      it('refuses a stored id before it looks at the key', async () => {
        const { backend } = subject();
        const first = await backend.tasks.enqueue(keyed(unique, { id: 'order-7' }));
        const error = await backend.tasks
          .enqueue(keyed(unique, { id: 'order-7' }))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TaskAlreadyExistsError);
        expect((error as TaskAlreadyExistsError).existing.id).toBe(first.id);
      });

      it('acts on a batch as on its records one by one, beside tasks without a key', async () => {
        const { backend } = subject();
        const plain = readyRecord(subject().alias, { name: 'contract.echo' });
        const [a, b, c] = [keyed(unique), plain, keyed(unique)];
        const stored = await backend.tasks.enqueueMany([a, b, c]);
        expect(stored.map((record) => record.id)).toEqual([a.id, b.id, a.id]);
        // Which tasks wait, not their order: b's record was made first, maybe a millisecond earlier.
        expect((await waiting(backend)).sort()).toEqual([a.id, b.id].sort());
      });
    });

    describe("mode 'debounce'", () => {
      const unique: TaskUniqueness = { key: 'digest-9', mode: 'debounce', ttlMs: 300 };

      it('defers the task, and a new enqueue while it waits replaces its arguments and pushes its start', async () => {
        const { backend } = subject();
        const first = await backend.tasks.enqueue(keyed(unique, { args: ['first'] }));
        await expect(backend.reads.peek('default', 'deferred', 10)).resolves.toHaveLength(1);
        await waitFor(() => Date.now() > first.task.runAfter!.getTime() - 290, {
          what: 'a few milliseconds to pass',
        });
        const second = keyed(unique, { args: ['second'] });
        const replaced = await backend.tasks.enqueue(second);
        expect(replaced.id).toBe(first.id);
        expect(replaced.args).toEqual(['second']);
        expect(replaced.task.runAfter!.getTime()).toBeGreaterThan(first.task.runAfter!.getTime());
        await expect(waiting(backend)).resolves.toEqual([first.id]);
        // Not due at the first one's time: its start moved to the second's.
        await waitFor(() => Date.now() > first.task.runAfter!.getTime() + 5, {
          what: "the first enqueue's due time to pass",
        });
        const promoted = (await runMaintenancePass(backend)).promoted;
        if (Date.now() < second.task.runAfter!.getTime()) {
          expect(promoted).toBe(0);
          await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
        }
        // On a slow machine the second's due time may have passed by that pass already.
        if (promoted === 0) await passUntil(backend, 'promoted', 1);
        const [running] = await acquireAll(backend);
        expect(running).toMatchObject({ id: first.id, args: ['second'] });
      });

      it('makes a new task that takes the key once the holder runs', async () => {
        const { backend } = subject();
        const first = await backend.tasks.enqueue(keyed({ ...unique, ttlMs: 1 }));
        // Due after 1 ms: stored ready at once when that passed before the enqueue went out.
        await waitFor(
          async () => {
            await runMaintenancePass(backend);
            const ready = await backend.reads.peek('default', 'ready', 10);
            return ready.some((record) => record.id === first.id);
          },
          { what: 'the debounced task to be ready' },
        );
        const [running] = await acquireAll(backend);
        expect(running.id).toBe(first.id);
        const next = keyed(unique, { args: ['next'] });
        await expect(backend.tasks.enqueue(next)).resolves.toMatchObject({ id: next.id });
        const again = await backend.tasks.enqueue(keyed(unique, { args: ['again'] }));
        expect(again).toMatchObject({ id: next.id, args: ['again'] });
      });
    });

    describe("mode 'window'", () => {
      it('holds past the finish of its task, and frees the key when its ttl ends', async () => {
        const { backend } = subject();
        const unique: TaskUniqueness = { key: 'report', mode: 'window', ttlMs: 400 };
        const first = await backend.tasks.enqueue(keyed(unique));
        // The store began the window before the enqueue answered, however long the call took.
        const answeredAt = Date.now();
        await backend.leases.acknowledge([succeed((await acquireAll(backend))[0])]);
        const held = await backend.tasks.enqueue(keyed(unique));
        expect(held).toMatchObject({ id: first.id, status: TaskResultStatus.SUCCESSFUL });
        await waitFor(() => Date.now() > answeredAt + 450, { what: 'the window to end' });
        const next = keyed(unique);
        await expect(backend.tasks.enqueue(next)).resolves.toMatchObject({ id: next.id });
      });

      it('refuses with UniqueKeyHeldError while the window holds a key whose task is gone', async () => {
        const backend = await subject().build({ retention: { successful: { maxAgeMs: 1 } } });
        const unique: TaskUniqueness = { key: 'report', mode: 'window', ttlMs: 60_000 };
        const first = await backend.tasks.enqueue(keyed(unique));
        await finishAndTrim(backend);
        await expect(backend.tasks.getResult(first.id)).rejects.toThrow(TaskResultDoesNotExist);
        const error = await backend.tasks.enqueue(keyed(unique)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UniqueKeyHeldError);
        expect(error).toMatchObject({ code: 'UNIQUE_KEY_HELD', key: 'report', holderId: first.id });
        const { windowEndsAt } = error as UniqueKeyHeldError;
        expect(windowEndsAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
        expect((error as Error).message).toMatch(/held by a window until/);
      });
    });

    const bursts: TaskUniqueness[] = [
      { key: 'burst', mode: 'unfinished' },
      { key: 'burst', mode: 'window', ttlMs: 60_000 },
      { key: 'burst', mode: 'debounce', ttlMs: 60_000 },
    ];
    for (const unique of bursts) {
      it(`makes exactly one task of 100 concurrent enqueues of one key (${unique.mode})`, async () => {
        const { backend } = subject();
        const stored = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            backend.tasks.enqueue(keyed(unique, { args: [i] })),
          ),
        );
        expect(new Set(stored.map((record) => record.id)).size).toBe(1);
        await expect(waiting(backend)).resolves.toHaveLength(1);
      });
    }
  });
}
