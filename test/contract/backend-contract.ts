import { randomUUID } from 'node:crypto';
import { InvalidBackendConfigError } from '../../lib/core/errors/invalid-backend-config.error';
import { TaskResultDoesNotExist } from '../../lib/core/errors/task-result-does-not-exist.error';
import type { QueueConfig } from '../../lib/core/queue-limits';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { nextAttempt } from '../../lib/lifecycle/retry-policy';
import type { TaskBackoff } from '../../lib/core/task-options.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import type { RetentionOptions } from '../../lib/core/retention';
import { readyRecord, type ReadyRecordFields } from '../helpers/ready-record';
import { passUntil } from '../helpers/maintenance-passes';
import { waitFor } from '../helpers/wait-for';
import type { ContractRunner } from './contract-runner';
import { describeAcknowledgeRefusals } from './acknowledge-refusal-contract';
import { describeCancels } from './cancel-contract';
import { describeCancelStarts } from './cancel-start-contract';
import { describeConcurrentEnqueues } from './coalesce-contract';
import { describeFinishedFeed } from './feed-contract';
import { describeGuard } from './guard-contract';
import { describeLiveFeed } from './live-feed-contract';
import { describeInterleavings } from './interleaving-contract';
import { describeManualControl } from './manual-contract';
import { describeUnknownTaskPutBacks } from './unknown-task-contract';
import { describeLimits } from './limit-contract';
import { describeListing } from './listing-contract';
import { describePauses } from './pause-contract';
import { describeProgress } from './progress-contract';
import { describeRepeats } from './repeat-contract';
import { describeRoles } from './role-contract';
import { describeScheduleStore } from './schedule-contract';
import { describeTraceContexts } from './trace-contract';
import { describeUniqueKeys } from './unique-contract';
import { runMaintenancePass } from '../../lib/lifecycle/maintenance-pass';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

/** How the contract asks a backend under test to be configured (all times in ms). */
export interface ContractSettings {
  alias: string;
  /** Names, or names with their limits as a backend's `queues` takes them. */
  queues: (string | QueueConfig)[];
  leaseTtl: number;
  resultTtl: number;
  maintenanceInterval: number;
  batchSize: number;
  retention?: RetentionOptions;
}

/** A backend built for one test, and how to remove everything it stored. */
export interface ContractSubject {
  backend: TaskBackend;
  cleanup(): Promise<void>;
  /** Another backend on the same store, as a restarted process opens it; absent for a store that is the instance. */
  reopen?(): Promise<TaskBackend>;
}

export type ContractFactory = (settings: ContractSettings) => Promise<ContractSubject>;

const QUEUES = ['default', 'emails', 'low'];

/** A READY record as the task layer would hand it to `enqueue`. */
export const newRecord = (alias: string, fields: ReadyRecordFields = {}): TaskRecord =>
  readyRecord(alias, { name: 'contract.echo', ...fields });

function finish(record: TaskRecord, status: TaskResultStatus, returnValue?: unknown): TaskRecord {
  const finished = { ...record, status, finishedAt: new Date() };
  return status === TaskResultStatus.SUCCESSFUL
    ? { ...finished, returnValue }
    : {
        ...finished,
        errors: [...record.errors, { className: 'Error', traceback: 'Error: boom\n    at task' }],
      };
}

/**
 * The behaviour every TaskBackend must have, written once and run against
 * each backend (memory, Redis, SQLite). A backend-specific suite adds what
 * only that store can show (keys, files, cluster).
 */
export function describeBackendContract(
  runner: ContractRunner,
  label: string,
  factory: ContractFactory,
): void {
  const { describe, it, expect, beforeEach, afterEach } = runner;
  describe(`${label} backend contract`, () => {
    const subjects: ContractSubject[] = [];
    let backend: TaskBackend;
    let alias: string;

    async function build(overrides: Partial<ContractSettings> = {}): Promise<TaskBackend> {
      const settings: ContractSettings = {
        alias: `t-${randomUUID()}`,
        queues: QUEUES,
        leaseTtl: 60_000,
        resultTtl: 60_000,
        maintenanceInterval: 1000,
        batchSize: 100,
        ...overrides,
      };
      const subject = await factory(settings);
      subjects.push(subject);
      return subject.backend;
    }

    beforeEach(async () => {
      backend = await build();
      alias = backend.alias;
    });

    afterEach(async () => {
      for (const subject of subjects.splice(0)) {
        await subject.cleanup();
        await subject.backend.close();
      }
    });

    const acquireOne = async (queues = ['default'], workerId = 'host:1-0') => {
      const acquired = await backend.leases.acquire(queues, { workerId, timeoutMs: 0 });
      expect(acquired).toHaveLength(1);
      return acquired[0];
    };

    describe('enqueue and getResult', () => {
      it('stores a READY task that getResult returns unchanged', async () => {
        const record = newRecord(alias, { args: [1, 'two', { three: [3] }], priority: 7 });
        const stored = await backend.tasks.enqueue(record);
        expect(stored).toEqual(record);
        await expect(backend.tasks.getResult(record.id)).resolves.toEqual(record);
      });

      it('throws TaskResultDoesNotExist for an unknown id', async () => {
        await expect(backend.tasks.getResult('no-such-id')).rejects.toThrow(TaskResultDoesNotExist);
      });

      it('stores a bulk enqueue and keeps its order within one priority', async () => {
        const records = [1, 2, 3, 4].map((n) => newRecord(alias, { args: [n] }));
        await expect(backend.tasks.enqueueMany(records)).resolves.toEqual(records);
        const acquired = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 10,
          timeoutMs: 0,
        });
        expect(acquired.map((r) => r.args[0])).toEqual([1, 2, 3, 4]);
      });

      it('accepts an empty bulk enqueue', async () => {
        await expect(backend.tasks.enqueueMany([])).resolves.toEqual([]);
      });
    });

    describe('acquire', () => {
      it('takes the highest priority first, then first in first out', async () => {
        const base = Date.now();
        const order = [
          ['a', 0],
          ['b', 10],
          ['c', 0],
          ['d', -5],
          ['e', 10],
        ] as const;
        for (const [i, [name, priority]] of order.entries()) {
          await backend.tasks.enqueue(
            newRecord(alias, { args: [name], priority, enqueuedAt: new Date(base + i) }),
          );
        }
        const taken: unknown[] = [];
        for (let i = 0; i < order.length; i++) taken.push((await acquireOne()).args[0]);
        expect(taken).toEqual(['b', 'e', 'a', 'c', 'd']);
      });

      it('empties queues in the order given, whatever their priorities', async () => {
        await backend.tasks.enqueue(
          newRecord(alias, { queue: 'default', priority: 100, args: ['d'] }),
        );
        await backend.tasks.enqueue(
          newRecord(alias, { queue: 'emails', priority: -100, args: ['e'] }),
        );
        expect((await acquireOne(['emails', 'default'])).args).toEqual(['e']);
        expect((await acquireOne(['emails', 'default'])).args).toEqual(['d']);
      });

      it('marks the task RUNNING for the worker and moves it to the running segment', async () => {
        const record = await backend.tasks.enqueue(newRecord(alias));
        const before = Date.now();
        const acquired = await acquireOne(['default'], 'host:42-3');
        expect(acquired).toMatchObject({
          id: record.id,
          status: TaskResultStatus.RUNNING,
          workerIds: ['host:42-3'],
        });
        expect(acquired.startedAt!.getTime()).toBeGreaterThanOrEqual(before - 5);
        expect(acquired.lastAttemptedAt).toEqual(acquired.startedAt);
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.RUNNING,
          workerIds: ['host:42-3'],
        });
        expect((await backend.reads.peek('default', 'running', 10)).map((r) => r.id)).toEqual([
          record.id,
        ]);
        await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
      });

      it('takes at most max tasks, best first', async () => {
        const base = Date.now();
        for (let i = 0; i < 5; i++) {
          await backend.tasks.enqueue(
            newRecord(alias, { args: [i], enqueuedAt: new Date(base + i) }),
          );
        }
        const first = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 3,
          timeoutMs: 0,
        });
        expect(first.map((r) => r.args[0])).toEqual([0, 1, 2]);
        const rest = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 3,
          timeoutMs: 0,
        });
        expect(rest.map((r) => r.args[0])).toEqual([3, 4]);
      });

      it('returns nothing at once from empty queues when the timeout is 0', async () => {
        await expect(
          backend.leases.acquire(QUEUES, { workerId: 'w', timeoutMs: 0 }),
        ).resolves.toEqual([]);
      });

      it('returns nothing after the timeout when no task arrives', async () => {
        const started = Date.now();
        await expect(
          backend.leases.acquire(QUEUES, { workerId: 'w', timeoutMs: 300 }),
        ).resolves.toEqual([]);
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      });

      it('wakes a waiting acquire when a task is enqueued', async () => {
        const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
        await new Promise((resolve) => setImmediate(resolve));
        const record = await backend.tasks.enqueue(newRecord(alias));
        const started = Date.now();
        const acquired = await waiting;
        expect(acquired.map((r) => r.id)).toEqual([record.id]);
        expect(Date.now() - started).toBeLessThan(2000);
      });

      it('ends a wait early when its signal aborts', async () => {
        const controller = new AbortController();
        const started = Date.now();
        const waiting = backend.leases.acquire(['default'], {
          workerId: 'w',
          timeoutMs: 10_000,
          signal: controller.signal,
        });
        setTimeout(() => controller.abort(), 50);
        await expect(waiting).resolves.toEqual([]);
        expect(Date.now() - started).toBeLessThan(2000);
      });

      it('never hands one task to two workers', async () => {
        const records = Array.from({ length: 20 }, (_, i) => newRecord(alias, { args: [i] }));
        await backend.tasks.enqueueMany(records);
        const batches = await Promise.all(
          Array.from({ length: 8 }, (_, w) =>
            backend.leases.acquire(['default'], { workerId: `w${w}`, max: 4, timeoutMs: 0 }),
          ),
        );
        const ids = batches.flat().map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(20);
      });
    });

    describe('acknowledge', () => {
      it('stores a SUCCESSFUL result with its return value', async () => {
        const record = await backend.tasks.enqueue(newRecord(alias));
        const acquired = await acquireOne();
        const done = finish(acquired, TaskResultStatus.SUCCESSFUL, { sent: true });
        await expect(backend.leases.acknowledge([done])).resolves.toEqual(['acknowledged']);
        const stored = await backend.tasks.getResult(record.id);
        expect(stored).toEqual(done);
        expect(stored.returnValue).toEqual({ sent: true });
        await expect(backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
        expect((await backend.reads.peek('default', 'successful', 10)).map((r) => r.id)).toEqual([
          record.id,
        ]);
      });

      it('stores a FAILED result with its errors in the failed history', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        const failed = finish(await acquireOne(), TaskResultStatus.FAILED);
        await expect(backend.leases.acknowledge([failed])).resolves.toEqual(['acknowledged']);
        const [peeked] = await backend.reads.peek('default', 'failed', 10);
        expect(peeked).toEqual(failed);
        expect(peeked.errors).toEqual([
          { className: 'Error', traceback: 'Error: boom\n    at task' },
        ]);
        await expect(backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
      });

      it('acknowledges many records at once, reporting each', async () => {
        await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias), newRecord(alias)]);
        const acquired = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 2,
          timeoutMs: 0,
        });
        const unacquired = (await backend.reads.peek('default', 'ready', 1))[0];
        const outcomes = await backend.leases.acknowledge([
          finish(acquired[0], TaskResultStatus.SUCCESSFUL, 1),
          finish(unacquired, TaskResultStatus.SUCCESSFUL, 2),
          finish(acquired[1], TaskResultStatus.FAILED),
        ]);
        expect(outcomes).toEqual(['acknowledged', 'stale', 'acknowledged']);
      });

      it('is a no-op reported as stale the second time', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        const done = finish(await acquireOne(), TaskResultStatus.SUCCESSFUL, 'first');
        await backend.leases.acknowledge([done]);
        const again = { ...done, returnValue: 'second' };
        await expect(backend.leases.acknowledge([again])).resolves.toEqual(['stale']);
        await expect(backend.tasks.getResult(done.id)).resolves.toMatchObject({
          returnValue: 'first',
        });
      });
    });

    describe('acknowledgeAndAcquire', () => {
      it('stores finished records of several queues in order, then leases the next tasks', async () => {
        await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias), newRecord(alias)]);
        await backend.tasks.enqueue(newRecord(alias, { queue: 'emails' }));
        const [a, b] = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 2,
          timeoutMs: 0,
        });
        const [c] = await backend.leases.acquire(['emails'], { workerId: 'w', timeoutMs: 0 });
        const waiting = (await backend.reads.peek('default', 'ready', 1))[0];
        const result = await backend.leases.acknowledgeAndAcquire(
          [
            finish(c, TaskResultStatus.FAILED),
            finish(a, TaskResultStatus.SUCCESSFUL, 'a'),
            finish(waiting, TaskResultStatus.SUCCESSFUL, 'not leased'),
            finish(b, TaskResultStatus.SUCCESSFUL, 'b'),
          ],
          ['default'],
          { workerId: 'w2', max: 5, timeoutMs: 0 },
        );
        expect(result.acknowledged).toEqual([
          'acknowledged',
          'acknowledged',
          'stale',
          'acknowledged',
        ]);
        expect(result.acquired.map((r) => [r.id, r.status, r.workerIds])).toEqual([
          [waiting.id, TaskResultStatus.RUNNING, ['w2']],
        ]);
        await expect(backend.tasks.getResult(a.id)).resolves.toMatchObject({ returnValue: 'a' });
        await expect(backend.tasks.getResult(b.id)).resolves.toMatchObject({ returnValue: 'b' });
        await expect(backend.tasks.getResult(c.id)).resolves.toMatchObject({
          status: TaskResultStatus.FAILED,
        });
        expect((await backend.reads.peek('emails', 'failed', 10)).map((r) => r.id)).toEqual([c.id]);
        expect(
          (await backend.reads.peek('default', 'successful', 10)).map((r) => r.id).sort(),
        ).toEqual([a.id, b.id].sort());
      });

      it('stores what finished when the wait is already aborted, and never waits for work', async () => {
        await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias)]);
        const [a, b] = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 2,
          timeoutMs: 0,
        });
        const aborted = new AbortController();
        aborted.abort();
        const first = await backend.leases.acknowledgeAndAcquire(
          [finish(a, TaskResultStatus.SUCCESSFUL, 'a')],
          ['low'],
          { workerId: 'w', timeoutMs: 60_000, signal: aborted.signal },
        );
        expect(first).toEqual({ acknowledged: ['acknowledged'], acquired: [] });
        // With records to store it does not wait for work (the test's timeout would catch it).
        const second = await backend.leases.acknowledgeAndAcquire(
          [finish(b, TaskResultStatus.SUCCESSFUL, 'b')],
          ['low'],
          { workerId: 'w', timeoutMs: 60_000 },
        );
        expect(second).toEqual({ acknowledged: ['acknowledged'], acquired: [] });
        await expect(backend.tasks.getResult(a.id)).resolves.toMatchObject({ returnValue: 'a' });
        await expect(backend.tasks.getResult(b.id)).resolves.toMatchObject({ returnValue: 'b' });
      });
    });

    describe('release', () => {
      it('puts a running task back in its ready queue, keeping its attempt history', async () => {
        const record = await backend.tasks.enqueue(newRecord(alias));
        const acquired = await acquireOne(['default'], 'host:1-0');
        await expect(backend.leases.release([acquired])).resolves.toBe(1);
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.READY,
          workerIds: ['host:1-0'],
        });
        const again = await acquireOne(['default'], 'host:2-0');
        expect(again.id).toBe(record.id);
        expect(again.workerIds).toEqual(['host:1-0', 'host:2-0']);
      });

      it('ignores a task it no longer holds', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        const acquired = await acquireOne();
        await backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, null)]);
        await expect(backend.leases.release([acquired])).resolves.toBe(0);
        await expect(backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      });
    });

    describe('waiting', () => {
      it('keeps a task however long it waits, ready or deferred, through maintenance passes', async () => {
        // A wait several times 3 * leaseTtl + resultTtl, the life a task's data once had.
        backend = await build({ leaseTtl: 50, resultTtl: 100 });
        alias = backend.alias;
        const ready = await backend.tasks.enqueue(newRecord(alias, { args: ['waited'] }));
        const deferred = await backend.tasks.enqueue(
          newRecord(alias, { args: ['deferred'], runAfter: new Date(Date.now() + 600) }),
        );
        const waitedUntil = Date.now() + 1200;
        while (Date.now() < waitedUntil) {
          await runMaintenancePass(backend);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await runMaintenancePass(backend);
        const leased = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 2,
          timeoutMs: 0,
        });
        expect(leased.map((r) => r.args[0]).sort()).toEqual(['deferred', 'waited']);
        await backend.leases.acknowledge(
          leased.map((r) => finish(r, TaskResultStatus.SUCCESSFUL, r.args[0])),
        );
        await expect(backend.tasks.getResult(ready.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
          returnValue: 'waited',
        });
        await expect(backend.tasks.getResult(deferred.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      });
    });

    describe('retention', () => {
      const finishOneByOne = async (count: number, status: TaskResultStatus): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const record = await backend.tasks.enqueue(newRecord(alias));
          const leased = await acquireOne();
          await backend.leases.acknowledge([finish(leased, status, i)]);
          ids.push(record.id);
          // Results of one status are ordered by when they were stored.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return ids;
      };

      it('keeps the newest results of a status up to its count, and each status to its own age', async () => {
        backend = await build({
          retention: { successful: { maxCount: 2 }, failed: { maxAgeMs: 1 } },
        });
        alias = backend.alias;
        const successful = await finishOneByOne(3, TaskResultStatus.SUCCESSFUL);
        const failed = await finishOneByOne(2, TaskResultStatus.FAILED);
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await runMaintenancePass(backend)).trimmed).toBeGreaterThanOrEqual(3);
        await expect(backend.tasks.getResult(successful[0])).rejects.toThrow(
          TaskResultDoesNotExist,
        );
        for (const id of successful.slice(1)) {
          await expect(backend.tasks.getResult(id)).resolves.toMatchObject({
            status: TaskResultStatus.SUCCESSFUL,
          });
        }
        for (const id of failed) {
          await expect(backend.tasks.getResult(id)).rejects.toThrow(TaskResultDoesNotExist);
        }
        const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
        expect([counts.successful, counts.failed]).toEqual([2, 0]);
      });

      it('trims cancelled tasks to their own limit, like every final status', async () => {
        backend = await build({ retention: { cancelled: { maxCount: 1 } } });
        alias = backend.alias;
        const cancelled: string[] = [];
        for (let i = 0; i < 2; i++) {
          const { id } = await backend.tasks.enqueue(newRecord(alias));
          await backend.control.cancel(id, decideCancel);
          cancelled.push(id);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await runMaintenancePass(backend);
        await expect(backend.tasks.getResult(cancelled[0])).rejects.toThrow(TaskResultDoesNotExist);
        await expect(backend.tasks.getResult(cancelled[1])).resolves.toMatchObject({
          status: TaskResultStatus.CANCELLED,
        });
        expect((await backend.reads.telemetry(60_000)).queues.default.counts.cancelled).toBe(1);
      });

      it("applies a queue's own limits before the status's", async () => {
        backend = await build({
          retention: {
            successful: { maxCount: 5 },
            queues: { default: { successful: { maxCount: 1 } } },
          },
        });
        alias = backend.alias;
        const successful = await finishOneByOne(2, TaskResultStatus.SUCCESSFUL);
        await runMaintenancePass(backend);
        await expect(backend.tasks.getResult(successful[0])).rejects.toThrow(
          TaskResultDoesNotExist,
        );
        await expect(backend.tasks.getResult(successful[1])).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      });

      it('refuses a limit that is not a whole positive number, or a status or queue it does not know', async () => {
        for (const retention of [
          { successful: { maxCount: 0 } },
          { done: { maxCount: 1 } },
          { queues: { nowhere: { failed: { maxAgeMs: 1 } } } },
        ]) {
          const refused = await build({ retention }).catch((e: unknown) => e);
          expect(refused).toBeInstanceOf(InvalidBackendConfigError);
          expect((refused as Error).message).toMatch(/option "retention/);
        }
      });
    });

    describe('configuration', () => {
      // The same mistakes refused the same way on every backend, each naming alias and option.
      const mistakes: [string, Partial<ContractSettings>, RegExp][] = [
        ['a queue name with a space', { queues: ['bad name!'] }, /option "queues" is invalid/],
        ['a queue listed twice', { queues: ['a', 'a'] }, /option "queues" lists a queue twice/],
        ['no queue', { queues: [] }, /option "queues" must be a non-empty array/],
        ['a lease of 1.5 ms', { leaseTtl: 1.5 }, /option "leaseTtl" must be a positive whole/],
        ['a negative result TTL', { resultTtl: -1 }, /option "resultTtl" must be a positive whole/],
        [
          'a batch of 0',
          { batchSize: 0 },
          /option "batchSize" must be a whole number of at least 1/,
        ],
      ];
      for (const [what, overrides, message] of mistakes) {
        it(`refuses ${what}`, async () => {
          const refused = await build(overrides).catch((e: unknown) => e);
          expect(refused).toBeInstanceOf(InvalidBackendConfigError);
          expect((refused as Error).message).toMatch(message);
          expect((refused as Error).message).toMatch(/^Threadmill backend "t-/);
        });
      }

      it('refuses an alias that is not a valid name', async () => {
        const refused = await build({ alias: 'bad alias!' }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(InvalidBackendConfigError);
        expect((refused as Error).message).toMatch(/backend alias/);
      });
    });

    describe('unlease', () => {
      it('gives a task that never started back as if never leased: no attempt counted', async () => {
        const record = await backend.tasks.enqueue(newRecord(alias));
        const leased = await acquireOne(['default'], 'host:1-0');
        await expect(backend.leases.unlease([leased])).resolves.toBe(1);
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.READY,
          workerIds: [],
          startedAt: null,
        });
        const again = await acquireOne(['default'], 'host:2-0');
        expect(again.id).toBe(record.id);
        expect(again.workerIds).toEqual(['host:2-0']);
      });

      it('keeps the attempts a task had before the lease it gives back', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        const first = await acquireOne(['default'], 'host:1-0');
        await backend.leases.release([first]);
        const second = await acquireOne(['default'], 'host:2-0');
        await expect(backend.leases.unlease([second])).resolves.toBe(1);
        await expect(backend.tasks.getResult(second.id)).resolves.toMatchObject({
          status: TaskResultStatus.READY,
          workerIds: ['host:1-0'],
        });
      });

      it('leaves alone a task leased again since, and one no longer held', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        const first = await acquireOne(['default'], 'host:1-0');
        await backend.leases.release([first]);
        const second = await acquireOne(['default'], 'host:2-0');
        // `first` names an earlier lease of the same task: not the one it holds now.
        await expect(backend.leases.unlease([first])).resolves.toBe(0);
        await expect(backend.tasks.getResult(second.id)).resolves.toMatchObject({
          status: TaskResultStatus.RUNNING,
          workerIds: ['host:1-0', 'host:2-0'],
        });
        await backend.leases.acknowledge([finish(second, TaskResultStatus.SUCCESSFUL, null)]);
        await expect(backend.leases.unlease([second])).resolves.toBe(0);
      });
    });

    describe('retry', () => {
      const noWait: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
      const withRetries = (retries: number, backoff: TaskBackoff = noWait): TaskRecord => {
        const record = newRecord(alias);
        return { ...record, task: { ...record.task, retries, backoff } };
      };
      /** The record a worker hands to retry after a failed attempt. */
      const failedAttempt = (running: TaskRecord): TaskRecord =>
        nextAttempt(finish(running, TaskResultStatus.FAILED), null, new Date());

      it('stores the retry policy with the task and reads it back', async () => {
        const backoff: TaskBackoff = { type: 'exponential', delayMs: 50, maxDelayMs: 400 };
        const record = await backend.tasks.enqueue(withRetries(3, backoff));
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          task: { retries: 3, backoff },
        });
        expect((await acquireOne()).task).toMatchObject({ retries: 3, backoff });
      });

      it("stores an attempt's time limit with the task and reads it back through a retry", async () => {
        const limited = withRetries(1);
        const record = await backend.tasks.enqueue({
          ...limited,
          task: { ...limited.task, timeoutMs: 1500 },
        });
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          task: { timeoutMs: 1500 },
        });
        const running = await acquireOne();
        expect(running.task.timeoutMs).toBe(1500);
        await expect(backend.leases.retry([failedAttempt(running)])).resolves.toEqual(['retried']);
        expect((await acquireOne()).task.timeoutMs).toBe(1500);
      });

      it('defers a held task until its backoff passed, keeping its errors and attempts', async () => {
        const record = await backend.tasks.enqueue(
          withRetries(2, { type: 'fixed', delayMs: 300, jitter: false }),
        );
        const retried = failedAttempt(await acquireOne(['default'], 'host:1-0'));
        expect(retried.status).toBe(TaskResultStatus.READY);
        await expect(backend.leases.retry([retried])).resolves.toEqual(['retried']);
        const stored = await backend.tasks.getResult(record.id);
        expect(stored).toMatchObject({ status: TaskResultStatus.READY, workerIds: ['host:1-0'] });
        expect(stored.errors.map((e) => e.className)).toEqual(['Error']);
        expect(stored.task.runAfter).toEqual(retried.task.runAfter);
        expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.id)).toEqual([
          record.id,
        ]);
        await expect(backend.reads.peek('default', 'running', 10)).resolves.toEqual([]);
        await expect(
          backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
        ).resolves.toEqual([]);
        await expect(passUntil(backend, 'promoted', 1)).resolves.toBe(1);
        const again = await acquireOne(['default'], 'host:2-0');
        expect(again.workerIds).toEqual(['host:1-0', 'host:2-0']);
        expect(again.errors).toHaveLength(1);
      });

      it('puts a task that is due at once straight back in its ready queue and wakes a consumer', async () => {
        const record = await backend.tasks.enqueue(withRetries(1));
        const retried = failedAttempt(await acquireOne());
        const waiting = backend.leases.acquire(['default'], { workerId: 'w2', timeoutMs: 10_000 });
        await expect(backend.leases.retry([retried])).resolves.toEqual(['retried']);
        expect((await waiting).map((r) => r.id)).toEqual([record.id]);
      });

      it('fails the attempt after the last one', async () => {
        const record = await backend.tasks.enqueue(withRetries(1));
        await backend.leases.retry([failedAttempt(await acquireOne())]);
        const last = nextAttempt(
          finish(await acquireOne(), TaskResultStatus.FAILED),
          null,
          new Date(),
        );
        expect(last.status).toBe(TaskResultStatus.FAILED);
        await expect(backend.leases.acknowledge([last])).resolves.toEqual(['acknowledged']);
        const stored = await backend.tasks.getResult(record.id);
        expect(stored.status).toBe(TaskResultStatus.FAILED);
        expect(stored.errors).toHaveLength(2);
        expect(stored.workerIds).toHaveLength(2);
      });

      it('is stale for a task it no longer holds', async () => {
        await backend.tasks.enqueue(withRetries(1));
        const acquired = await acquireOne();
        await backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 1)]);
        await expect(backend.leases.retry([failedAttempt(acquired)])).resolves.toEqual(['stale']);
        await expect(backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      });

      it('retries a task whose lease expired while attempts are left, and fails it after the last', async () => {
        backend = await build({ leaseTtl: 200 });
        alias = backend.alias;
        const record = await backend.tasks.enqueue(withRetries(1));
        const first = await acquireOne();
        await waitFor(() => Date.now() > first.lastAttemptedAt!.getTime() + 250, {
          what: 'the first lease to expire',
        });
        expect((await runMaintenancePass(backend)).reaped).toBe(1);
        const retried = await backend.tasks.getResult(record.id);
        expect(retried.status).toBe(TaskResultStatus.READY);
        expect(retried.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
        const second = await acquireOne();
        expect(second.workerIds).toHaveLength(2);
        await waitFor(() => Date.now() > second.lastAttemptedAt!.getTime() + 250, {
          what: 'the second lease to expire',
        });
        expect((await runMaintenancePass(backend)).reaped).toBe(1);
        const failed = await backend.tasks.getResult(record.id);
        expect(failed.status).toBe(TaskResultStatus.FAILED);
        expect(failed.errors.map((e) => e.className)).toEqual([
          'AcknowledgementTimeout',
          'AcknowledgementTimeout',
        ]);
      });

      it('ends CANCELLED, whatever its retries, a task whose lease expired after a cancel was asked of it', async () => {
        backend = await build({ leaseTtl: 200 });
        alias = backend.alias;
        const record = await backend.tasks.enqueue(withRetries(3));
        const running = await acquireOne();
        await expect(backend.control.cancel(record.id, decideCancel)).resolves.toMatchObject({
          outcome: 'requested',
        });
        await waitFor(() => Date.now() > running.lastAttemptedAt!.getTime() + 250, {
          what: 'the lease to expire',
        });
        expect((await runMaintenancePass(backend)).reaped).toBe(1);
        const ended = await backend.tasks.getResult(record.id);
        expect(ended.status).toBe(TaskResultStatus.CANCELLED);
        expect(ended.errors.map((e) => e.className)).toEqual([
          'AcknowledgementTimeout',
          'TaskCancelledError',
        ]);
      });
    });

    describe('dead pools', () => {
      it("recovers the tasks of a pool whose heartbeat lapsed, and only that pool's", async () => {
        const plain = await backend.tasks.enqueue(newRecord(alias));
        const retrying = newRecord(alias);
        await backend.tasks.enqueue({
          ...retrying,
          task: { ...retrying.task, retries: 1, backoff: { type: 'fixed', delayMs: 0 } },
        });
        const kept = await backend.tasks.enqueue(newRecord(alias));
        await backend.pools.beat('pool-a', 200);
        await backend.pools.beat('pool-b', 60_000);
        const lost = await backend.leases.acquire(['default'], {
          workerId: 'a:1-1',
          max: 2,
          timeoutMs: 0,
          poolId: 'pool-a',
        });
        expect(lost.map((r) => r.id)).toEqual([plain.id, retrying.id]);
        const [held] = await backend.leases.acquire(['default'], {
          workerId: 'b:1-1',
          timeoutMs: 0,
          poolId: 'pool-b',
        });
        expect(held.id).toBe(kept.id);
        // Still beating: nothing to recover yet.
        expect((await runMaintenancePass(backend)).recovered).toBe(0);
        await waitFor(() => Date.now() > lost[0].lastAttemptedAt!.getTime() + 250, {
          what: "pool-a's heartbeat to lapse",
        });
        await backend.pools.beat('pool-b', 60_000);
        expect((await runMaintenancePass(backend)).recovered).toBe(2);

        const failed = await backend.tasks.getResult(plain.id);
        expect(failed.status).toBe(TaskResultStatus.FAILED);
        expect(failed.errors.map((e) => e.className)).toEqual(['WorkerLost']);
        expect(failed.errors[0].traceback).toContain('pool-a');
        expect((await backend.reads.peek('default', 'failed', 10)).map((r) => r.id)).toEqual([
          plain.id,
        ]);
        const retried = await backend.tasks.getResult(retrying.id);
        expect(retried.status).toBe(TaskResultStatus.READY);
        expect(retried.errors.map((e) => e.className)).toEqual(['WorkerLost']);
        await expect(backend.tasks.getResult(kept.id)).resolves.toMatchObject({
          status: TaskResultStatus.RUNNING,
        });
        expect((await backend.reads.peek('default', 'running', 10)).map((r) => r.id)).toEqual([
          kept.id,
        ]);

        // The lost pool's late acknowledge changes nothing, and a second pass finds nothing.
        await expect(
          backend.leases.acknowledge([finish(lost[0], TaskResultStatus.SUCCESSFUL, 'late')]),
        ).resolves.toEqual(['stale']);
        expect((await runMaintenancePass(backend)).recovered).toBe(0);
        expect((await acquireOne(['default'], 'b:1-2')).id).toBe(retrying.id);
      });

      it('recovers the pool that lapsed first when one pass has room for only one', async () => {
        const small = await build({ batchSize: 1 });
        const early = await small.tasks.enqueue(newRecord(small.alias));
        const late = await small.tasks.enqueue(newRecord(small.alias));
        // pool-late beats first but lapses last; a store that lists pools as they came would take it first.
        await small.pools.beat('pool-late', 800);
        await small.pools.beat('pool-early', 400);
        for (const [poolId, workerId] of [
          ['pool-early', 'e:1-1'],
          ['pool-late', 'l:1-1'],
        ]) {
          await small.leases.acquire(['default'], { workerId, timeoutMs: 0, poolId });
        }
        const leased = await small.tasks.getResult(late.id);
        await waitFor(() => Date.now() > leased.lastAttemptedAt!.getTime() + 850, {
          what: 'both heartbeats to lapse',
        });
        expect((await runMaintenancePass(small)).recovered).toBe(1);
        await expect(small.tasks.getResult(early.id)).resolves.toMatchObject({
          status: TaskResultStatus.FAILED,
        });
        await expect(small.tasks.getResult(late.id)).resolves.toMatchObject({
          status: TaskResultStatus.RUNNING,
        });
      });

      it('never recovers the tasks of the pool that runs the pass, even when its beat lapsed', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        await backend.pools.beat('pool-a', 100);
        const [acquired] = await backend.leases.acquire(['default'], {
          workerId: 'a:1-1',
          timeoutMs: 0,
          poolId: 'pool-a',
        });
        await waitFor(() => Date.now() > acquired.lastAttemptedAt!.getTime() + 150, {
          what: "pool-a's heartbeat to lapse",
        });
        expect((await runMaintenancePass(backend, { poolId: 'pool-a' })).recovered).toBe(0);
        await expect(backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
          status: TaskResultStatus.RUNNING,
        });
        expect((await runMaintenancePass(backend, { poolId: 'pool-b' })).recovered).toBe(1);
      });

      it('recovers nothing of a pool that acknowledged its tasks before it stopped', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        await backend.pools.beat('pool-a', 100);
        const [acquired] = await backend.leases.acquire(['default'], {
          workerId: 'a:1-1',
          timeoutMs: 0,
          poolId: 'pool-a',
        });
        await backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 1)]);
        await backend.pools.retire('pool-a');
        await waitFor(() => Date.now() > acquired.lastAttemptedAt!.getTime() + 150, {
          what: "pool-a's heartbeat to lapse",
        });
        expect((await runMaintenancePass(backend)).recovered).toBe(0);
        await expect(backend.tasks.getResult(acquired.id)).resolves.toMatchObject({
          status: TaskResultStatus.SUCCESSFUL,
        });
      });
    });

    describe('deferred tasks', () => {
      it('keeps a task with a future runAfter out of reach until a maintenance pass moves it', async () => {
        expect(backend.features.defer).toBe(true);
        const runAfter = new Date(Date.now() + 300);
        const record = await backend.tasks.enqueue(newRecord(alias, { runAfter }));
        expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.id)).toEqual([
          record.id,
        ]);
        await runMaintenancePass(backend);
        await expect(
          backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 }),
        ).resolves.toEqual([]);
        await expect(passUntil(backend, 'promoted', 1)).resolves.toBe(1);
        expect((await acquireOne()).id).toBe(record.id);
      });

      it('treats a runAfter in the past as ready at once', async () => {
        const record = await backend.tasks.enqueue(
          newRecord(alias, { runAfter: new Date(Date.now() - 1000) }),
        );
        expect((await acquireOne()).id).toBe(record.id);
      });

      it('wakes a waiting acquire when a maintenance pass promotes a task', async () => {
        const runAfter = new Date(Date.now() + 200);
        const record = await backend.tasks.enqueue(newRecord(alias, { runAfter }));
        const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 10_000 });
        await passUntil(backend, 'promoted', 1);
        const started = Date.now();
        expect((await waiting).map((r) => r.id)).toEqual([record.id]);
        expect(Date.now() - started).toBeLessThan(2000);
      });
    });

    describe('leases', () => {
      it('fails a task whose lease expired with AcknowledgementTimeout, and a late acknowledge is stale', async () => {
        backend = await build({ leaseTtl: 200 });
        alias = backend.alias;
        const record = await backend.tasks.enqueue(newRecord(alias));
        const acquired = await acquireOne();
        await waitFor(() => Date.now() > acquired.startedAt!.getTime() + 250, {
          what: 'the lease to expire',
        });
        const report = await runMaintenancePass(backend);
        expect(report.reaped).toBe(1);
        const reaped = await backend.tasks.getResult(record.id);
        expect(reaped.status).toBe(TaskResultStatus.FAILED);
        expect(reaped.finishedAt).not.toBeNull();
        expect(reaped.errors.map((e) => e.className)).toEqual(['AcknowledgementTimeout']);
        expect(reaped.errors[0].traceback).toContain(record.id);
        expect((await backend.reads.peek('default', 'failed', 10)).map((r) => r.id)).toEqual([
          record.id,
        ]);
        await expect(
          backend.leases.acknowledge([finish(acquired, TaskResultStatus.SUCCESSFUL, 'late')]),
        ).resolves.toEqual(['stale']);
        await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
          status: TaskResultStatus.FAILED,
        });
      });

      it('leaves a task whose lease is still valid alone', async () => {
        await backend.tasks.enqueue(newRecord(alias));
        await acquireOne();
        const report = await runMaintenancePass(backend);
        expect(report.reaped).toBe(0);
        expect(report.failedSteps).toEqual([]);
      });
    });

    describe('results', () => {
      it('expire after resultTtl', async () => {
        backend = await build({ resultTtl: 300 });
        alias = backend.alias;
        await backend.tasks.enqueue(newRecord(alias));
        const done = finish(await acquireOne(), TaskResultStatus.SUCCESSFUL, 1);
        await backend.leases.acknowledge([done]);
        await expect(backend.tasks.getResult(done.id)).resolves.toMatchObject({ id: done.id });
        await waitFor(
          async () => {
            await runMaintenancePass(backend);
            return backend.tasks.getResult(done.id).then(
              () => false,
              (error: unknown) => error instanceof TaskResultDoesNotExist,
            );
          },
          { timeoutMs: 5000, intervalMs: 100, what: 'the result to expire' },
        );
        await expect(backend.reads.peek('default', 'successful', 10)).resolves.toEqual([]);
      });
    });

    describe('peek', () => {
      it('lists a segment best first, limited by count', async () => {
        const base = Date.now();
        await backend.tasks.enqueue(
          newRecord(alias, { args: ['low'], priority: -1, enqueuedAt: new Date(base) }),
        );
        await backend.tasks.enqueue(
          newRecord(alias, { args: ['high'], priority: 5, enqueuedAt: new Date(base + 1) }),
        );
        await backend.tasks.enqueue(
          newRecord(alias, { args: ['mid'], enqueuedAt: new Date(base + 2) }),
        );
        expect((await backend.reads.peek('default', 'ready', 2)).map((r) => r.args[0])).toEqual([
          'high',
          'mid',
        ]);
        await expect(backend.reads.peek('emails', 'ready', 10)).resolves.toEqual([]);
      });

      it('lists deferred tasks soonest first', async () => {
        const now = Date.now();
        await backend.tasks.enqueue(
          newRecord(alias, { args: ['later'], runAfter: new Date(now + 60_000) }),
        );
        await backend.tasks.enqueue(
          newRecord(alias, { args: ['sooner'], runAfter: new Date(now + 30_000) }),
        );
        expect((await backend.reads.peek('default', 'deferred', 10)).map((r) => r.args[0])).toEqual(
          ['sooner', 'later'],
        );
      });
    });

    describe('telemetry', () => {
      it('counts every segment and the ingress and egress within the window', async () => {
        await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias), newRecord(alias)]);
        await backend.tasks.enqueue(newRecord(alias, { runAfter: new Date(Date.now() + 60_000) }));
        await backend.tasks.enqueue(newRecord(alias, { queue: 'emails' }));
        const [a, b] = await backend.leases.acquire(['default'], {
          workerId: 'w',
          max: 2,
          timeoutMs: 0,
        });
        await backend.leases.acknowledge([finish(a, TaskResultStatus.SUCCESSFUL, 1)]);
        const [c] = await backend.leases.acquire(['emails'], { workerId: 'w', timeoutMs: 0 });
        await backend.leases.acknowledge([finish(c, TaskResultStatus.FAILED)]);

        const telemetry = await backend.reads.telemetry(60_000);
        expect(Object.keys(telemetry.queues).sort()).toEqual([...QUEUES].sort());
        expect(telemetry.queues.default).toEqual({
          counts: { ready: 1, running: 1, deferred: 1, successful: 1, failed: 0, cancelled: 0 },
          rates: { intervalMs: 60_000, ingress: 4, egress: 1, failed: 0 },
        });
        expect(telemetry.queues.emails).toEqual({
          counts: { ready: 0, running: 0, deferred: 0, successful: 0, failed: 1, cancelled: 0 },
          rates: { intervalMs: 60_000, ingress: 1, egress: 1, failed: 1 },
        });
        expect(telemetry.queues.low.counts).toEqual({
          ready: 0,
          running: 0,
          deferred: 0,
          successful: 0,
          failed: 0,
          cancelled: 0,
        });
        expect(b.status).toBe(TaskResultStatus.RUNNING);
      });
    });

    describeAcknowledgeRefusals(runner, () => ({ backend, alias }));
    describeGuard(runner, () => ({ backend, alias, fresh: () => build() }));
    describeRepeats(runner, () => ({ backend, alias }));
    describeCancels(runner, () => ({ backend, alias }));
    describeFinishedFeed(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen, build }));
    describeLiveFeed(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    describeProgress(runner, () => ({ backend, alias }));
    describeManualControl(runner, () => ({ backend, alias }));
    describeUnknownTaskPutBacks(runner, () => ({ backend, alias }));
    describePauses(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    describeLimits(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen, build }));
    describeScheduleStore(runner, () => ({ backend }));
    describeUniqueKeys(runner, () => ({ backend, alias, build }));
    describeConcurrentEnqueues(runner, () => ({ backend, alias, build }));
    describeTraceContexts(runner, () => ({ backend, alias }));
    describeRoles(runner, () => ({ backend, reopen: subjects[0]?.reopen }));
    describeListing(runner, () => ({ backend, alias }));
    describeInterleavings(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    describeCancelStarts(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));

    describe('maintenance pass', () => {
      it('has no heartbeat before its first pass, and a fresh one after', async () => {
        await expect(backend.reads.maintenanceHeartbeat()).resolves.toBeNull();
        const before = Date.now();
        await runMaintenancePass(backend);
        const heartbeat = await backend.reads.maintenanceHeartbeat();
        expect(heartbeat).toBeInstanceOf(Date);
        expect(heartbeat!.getTime()).toBeGreaterThanOrEqual(before - 5);
      });

      it('answers a ping', async () => {
        await expect(backend.ping()).resolves.toBeUndefined();
      });
    });
  });
}
