import { MemoryBackend } from '../../lib/backends/memory/memory.backend';
import type { MemoryBackendOptions } from '../../lib/backends/memory/memory-backend-options.interface';
import type { QueueCounts } from '../../lib/core/backend-telemetry.interface';
import type { TaskRecord, TaskErrorRecord } from '../../lib/core/task-record.interface';
import { FINISHED_STATUSES, TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { atWallClock } from './clock';
import { readyRecord, type ReadyRecordFields } from './ready-record';
import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { isRetry } from '../../lib/core/retry-policy';
import { nextAttempt } from '../../lib/lifecycle/retry-policy';
import { storeRules } from '../../lib/lifecycle/store-rules';

/** The alias of the real in-memory backend that the worker and inspector unit tests run on. */
export const MEMORY_ALIAS = 'memory';

export function memoryBackend(
  options: MemoryBackendOptions = {},
  { alias = MEMORY_ALIAS, queues = ['default'] }: { alias?: string; queues?: string[] } = {},
): MemoryBackend {
  return new MemoryBackend(
    alias,
    { backend: MemoryBackend, queues, options: { ...options } },
    storeRules,
  );
}

/**
 * A READY record as enqueue takes it. One enqueue time for all, so a queue
 * serves them in the order they were enqueued.
 */
export const readyTask = (id: string, fields: ReadyRecordFields = {}): TaskRecord =>
  readyRecord(MEMORY_ALIAS, { id, enqueuedAt: new Date(0), ...fields });

/** Enqueues READY tasks of these ids, in order. */
export async function enqueueReady(backend: MemoryBackend, ...ids: string[]): Promise<void> {
  await backend.tasks.enqueueMany(ids.map((id) => readyTask(id)));
}

/**
 * Enqueues `records` and leases them to `workerId` (`host:pid-slot`), as one
 * acquire of that worker would: they are RUNNING, held under that id.
 * Throws unless the acquire took exactly these, so a test never leases
 * another task than it meant to (enqueue the ready ones afterwards).
 */
export async function leaseTo(
  backend: MemoryBackend,
  workerId: string,
  ...records: TaskRecord[]
): Promise<TaskRecord[]> {
  await backend.tasks.enqueueMany(records);
  const queue = records[0].task.queue;
  const leased = await backend.leases.acquire([queue], {
    workerId,
    max: records.length,
    timeoutMs: 0,
  });
  const want = records.map((r) => r.id).join();
  if (leased.map((r) => r.id).join() !== want) {
    throw new Error(
      `leaseTo: asked for ${want}, the acquire took ${leased.map((r) => r.id).join()}`,
    );
  }
  return leased;
}

/** What the backend counts in `queue` now. */
export async function countsOf(backend: MemoryBackend, queue = 'default'): Promise<QueueCounts> {
  return (await backend.reads.telemetry(1000)).queues[queue].counts;
}

/** A spy on a method that takes records first (acknowledge, retry, release, unlease). */
interface RecordsSpy {
  readonly mock: { readonly calls: readonly (readonly [readonly TaskRecord[], ...unknown[]])[] };
}

/** Every record the spied method was given, call after call. */
export const recordsOf = (spy: RecordsSpy): TaskRecord[] =>
  spy.mock.calls.flatMap(([records]) => [...records]);

/** The ids of every record the spied method was given, call after call. */
export const idsOf = (spy: RecordsSpy): string[] => recordsOf(spy).map((record) => record.id);

/** Each call's ids, one array per call. */
export const batchesOf = (spy: RecordsSpy): string[][] =>
  spy.mock.calls.map(([records]) => records.map((record) => record.id));

/**
 * Stores each record as `backend` would hold it had it lived through its
 * own times, all through the public API: enqueued at `enqueuedAt`, leased
 * to its last worker id when it started, acknowledged at `finishedAt` when
 * finished. Segments, counts, rates and history are then the backend's own.
 * Leased and finished records go first, each leased alone, so each acquire
 * takes that very record. Not for a test whose timers are already fake.
 */
export async function seed(backend: MemoryBackend, records: readonly TaskRecord[]): Promise<void> {
  const waiting = records.filter((r) => r.status === TaskResultStatus.READY);
  for (const record of records.filter((r) => r.status !== TaskResultStatus.READY)) {
    await replay(backend, record);
  }
  for (const record of waiting)
    await atWallClock(record.enqueuedAt, () => backend.tasks.enqueue(record));
}

async function replay(backend: MemoryBackend, record: TaskRecord): Promise<void> {
  const workerId = record.workerIds.at(-1);
  if (workerId === undefined)
    throw new Error(`seed: ${record.id} is ${record.status} but names no worker`);
  const earlier = record.workerIds.slice(0, -1);
  // A waiting task has no return value yet.
  const { returnValue, ...rest } = record;
  const waiting: TaskRecord = {
    ...rest,
    status: TaskResultStatus.READY,
    workerIds: earlier,
    // A first attempt starts when it is leased; a later one keeps the first start.
    startedAt: earlier.length > 0 ? record.startedAt : null,
    lastAttemptedAt: earlier.length > 0 ? record.lastAttemptedAt : null,
    finishedAt: null,
  };
  const leasedAt = (earlier.length > 0 ? record.lastAttemptedAt : record.startedAt) ?? new Date();
  await atWallClock(record.enqueuedAt, () => backend.tasks.enqueue(waiting));
  const leased = await atWallClock(leasedAt, () =>
    backend.leases.acquire([record.task.queue], { workerId, timeoutMs: 0 }),
  );
  if (leased.length !== 1 || leased[0].id !== record.id) {
    throw new Error(
      `seed: leasing ${record.id} took ${leased.map((r) => r.id).join() || 'nothing'}`,
    );
  }
  if (!FINISHED_STATUSES.has(record.status)) return;
  const [outcome] = await atWallClock(record.finishedAt ?? new Date(), () =>
    backend.leases.acknowledge([record]),
  );
  if (outcome !== 'acknowledged') throw new Error(`seed: acknowledging ${record.id}: ${outcome}`);
}

/** What a worker stored for tasks it finished together (see finishTogether). */
export interface TogetherOutcome {
  /** When they were enqueued and leased. */
  readonly startedAt: Date;
  /** When they were acknowledged. */
  readonly finishedAt: Date;
  /** The final status, and the return value or errors with it. */
  readonly result: Pick<TaskRecord, 'status'> & Partial<Pick<TaskRecord, 'returnValue' | 'errors'>>;
}

/**
 * Stores `records` finished as one worker finishes a batch, through the
 * public API with the wall clock at each step: enqueued and leased to
 * `workerId` in one acquire at `startedAt` (see leaseTo), acknowledged in one
 * call at `finishedAt` as `result` says. A history of thousands in three
 * calls, where `seed` takes a record at a time. Throws unless each was
 * acknowledged. Not for a test whose timers are already fake.
 */
export async function finishTogether(
  backend: MemoryBackend,
  workerId: string,
  records: readonly TaskRecord[],
  { startedAt, finishedAt, result }: TogetherOutcome,
): Promise<TaskRecord[]> {
  const leased = await atWallClock(startedAt, () => leaseTo(backend, workerId, ...records));
  const finished = leased.map((running): TaskRecord => ({ ...running, finishedAt, ...result }));
  const outcomes = await atWallClock(finishedAt, () => backend.leases.acknowledge(finished));
  const refused = outcomes.findIndex((outcome) => outcome !== 'acknowledged');
  if (refused >= 0) {
    throw new Error(`finishTogether: acknowledging ${finished[refused].id}: ${outcomes[refused]}`);
  }
  return finished;
}

/**
 * `records` as a backend reads them back once `seed` stored them: each
 * through getResult of a new MemoryBackend named by their `task.backend`
 * that serves their queues, with the wall clock at the record's last time
 * (so a record of a fixed date is read before its result expires). For a
 * test of what shows records, so it shows ones a real store holds.
 */
export async function seeded(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
  const queues = [...new Set(records.map((record) => record.task.queue))];
  const backend = memoryBackend({}, { alias: records[0]?.task.backend ?? MEMORY_ALIAS, queues });
  await seed(backend, records);
  const read: TaskRecord[] = [];
  for (const { id, enqueuedAt, lastAttemptedAt, finishedAt } of records) {
    const last = finishedAt ?? lastAttemptedAt ?? enqueuedAt;
    read.push(await atWallClock(last, () => backend.tasks.getResult(id)));
  }
  return read;
}

/** The methods of a backend that return a promise: the calls that go to its store. */
export type StoreCall = 'reads.peek' | 'reads.telemetry' | 'tasks.getResult' | 'leases.acquire';

/** A store that cannot be reached, made by `outage`. */
export interface Outage {
  /** The store answers again: each call reaches the backend as before the outage. */
  end(): void;
}

/**
 * From now until `end()`, each of `calls` (by default the reads: peek,
 * telemetry and getResult) fails as it would while the backend's store
 * cannot be reached: with a new BackendUnavailableError saying `reason`.
 * The methods are spied on (an existing spy is reused and keeps counting),
 * so a test can still see the calls made meanwhile.
 */
export function outage(
  backend: MemoryBackend,
  reason = 'connect ECONNREFUSED 127.0.0.1:6379',
  calls: readonly StoreCall[] = ['reads.peek', 'reads.telemetry', 'tasks.getResult'],
): Outage {
  const ends = calls.map((call) => {
    const [part, method] = call.split('.') as ['reads', 'peek'];
    const spy = jest.spyOn(backend[part], method);
    const before = spy.getMockImplementation();
    spy.mockImplementation(async () => {
      throw new BackendUnavailableError(reason);
    });
    return () => (before ? spy.mockImplementation(before) : spy.mockRestore());
  });
  return { end: () => ends.forEach((end) => end()) };
}

/**
 * Stores `leased` (as an acquire returned them) SUCCESSFUL, as the worker
 * that holds them acknowledges them. Throws unless each was acknowledged.
 */
export async function acknowledgeSucceeded(
  backend: MemoryBackend,
  ...leased: TaskRecord[]
): Promise<TaskRecord[]> {
  const finished = leased.map((running): TaskRecord => ({
    ...running,
    status: TaskResultStatus.SUCCESSFUL,
    finishedAt: new Date(),
    returnValue: null,
  }));
  const outcomes = await backend.leases.acknowledge(finished);
  const refused = outcomes.findIndex((outcome) => outcome !== 'acknowledged');
  if (refused >= 0) {
    throw new Error(
      `acknowledgeSucceeded: acknowledging ${finished[refused].id}: ${outcomes[refused]}`,
    );
  }
  return finished;
}

/**
 * Leases `record` to `workerId` (see leaseTo) and ends that attempt with
 * `error`, as that worker does with a task that has attempts left: sent back
 * through retry, READY again as nextAttempt made it (the attempt counted in
 * its worker ids, the error in its errors, its runAfter the backoff from
 * now). Throws unless the task had an attempt left and the backend took it back.
 */
export async function retriedBy(
  backend: MemoryBackend,
  workerId: string,
  record: TaskRecord,
  error: TaskErrorRecord = { className: 'Error', traceback: 'Error: boom' },
): Promise<TaskRecord> {
  const [running] = await leaseTo(backend, workerId, record);
  const next = nextAttempt(running, error, new Date());
  if (!isRetry(next)) throw new Error(`retriedBy: ${record.id} has no attempt left`);
  const [outcome] = await backend.leases.retry([next]);
  if (outcome !== 'retried') throw new Error(`retriedBy: retrying ${record.id}: ${outcome}`);
  return next;
}
