import { performance } from 'node:perf_hooks';

import type { StoreRules } from '../../core/ports/store-rules.port';
import { EnqueueCoalescer, type EnqueueOutcome } from '../enqueue-coalescer';
import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import type { TaskRecord } from '../../core/task-record.interface';
import type { TaskRecordSource } from '../../core/task-result';
import { serializeRecord } from '../../core/task-serializer';
import { assertDistinctIds } from '../distinct-ids';
import { delayUntil } from '../run-after';
import type { TaskTransaction } from '../../core/task-transaction';
import type { PostgresAppTransaction } from './postgres-app-transaction';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import { PostgresEnqueueErrors } from './postgres-enqueue-errors';
import { plainRuns } from './postgres-enqueue-runs';
import { readyScore } from './postgres-rows';
import type { DataRow, PostgresTaskStatements } from './postgres-task-statements';
import type { PostgresUniqueKeys } from './postgres-unique-keys';

/** When an enqueue was called: on this process's monotonic clock, and on its wall clock. */
interface EnqueueCall {
  readonly mono: number;
  readonly wallMs: number;
}

/**
 * How a PostgresBackend stores new tasks, a batch in one transaction: all or
 * none (enqueueMany, refused whole when an id is taken), or each (single
 * enqueues gathered by EnqueueCoalescer), where a refusal refuses only its
 * own record. An id is inserted first (ON CONFLICT DO NOTHING waits for a
 * transaction that holds it) and only then checked against the results, so
 * an id finishing at the same moment is never stored twice.
 *
 * @internal
 */
export class PostgresEnqueuer {
  private readonly coalescer = new EnqueueCoalescer(async (records) => this.enqueueEach(records));
  private readonly errors: PostgresEnqueueErrors;
  /** The last enqueue transaction asked for; the next one starts once it settled. */
  private tail: Promise<void> = Promise.resolve();

  /** @param results where the TaskResult of an id already taken reads from (the backend). */
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresTaskStatements,
    private readonly uniqueKeys: PostgresUniqueKeys,
    private readonly notices: PostgresNotices,
    results: TaskRecordSource,
    private readonly rules: StoreRules,
    private readonly app: PostgresAppTransaction,
  ) {
    this.errors = new PostgresEnqueueErrors(alias, sql, results);
  }

  /** One task, in one transaction with the other enqueues of this tick. */
  enqueue(record: TaskRecord): Promise<TaskRecord> {
    return this.coalescer.enqueue(record);
  }

  /** Stores the records, all or none; per record what was stored or the key's holder. */
  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    if (records.length === 0) return [];
    assertDistinctIds(records);
    this.coalescer.flush();
    return this.inOrder((call) => this.storeMany(records, call));
  }

  /**
   * Stores the records inside the app's open transaction, all or none, as
   * enqueueMany does in one of its own: not in the order of this backend's
   * own enqueues, since the app's commit decides when they count.
   */
  async enqueueInTransaction(
    transaction: TaskTransaction,
    records: readonly TaskRecord[],
  ): Promise<TaskRecord[]> {
    if (records.length === 0) return [];
    assertDistinctIds(records);
    const call: EnqueueCall = { mono: performance.now(), wallMs: Date.now() };
    return this.app.run(this.alias, transaction, records.length > 1, (tx) =>
      this.writeMany(tx, records, call, true),
    );
  }

  private storeMany(records: readonly TaskRecord[], call: EnqueueCall): Promise<TaskRecord[]> {
    return this.connection.transaction(
      (tx) => this.writeMany(tx, records, call),
      true,
      (cause) => this.errors.outcomeUnknown(records, cause),
    );
  }

  /**
   * The writes of an all-or-none batch; a refusal is thrown, and the caller
   * undoes them. `apart`: the ingress is counted outside `tx` (made).
   */
  private async writeMany(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    call: EnqueueCall,
    apart = false,
  ): Promise<TaskRecord[]> {
    const now = this.connection.clock.at(call.mono);
    if (!records.some((record) => record.task.unique)) {
      await this.store(tx, records, now, true, call.wallMs);
      await this.made(tx, records, now, apart);
      return [...records];
    }
    return this.storeKeyed(tx, records, now, call.wallMs, apart);
  }

  /** Per record, in order, what a lone enqueue of it would return or throw. */
  private enqueueEach(records: readonly TaskRecord[]): Promise<EnqueueOutcome[]> {
    return this.inOrder((call) => this.storeEach(records, call));
  }

  /**
   * Runs the enqueue transactions of this backend one after another, in call
   * order, as a store with one writer would: a bulk made after single
   * enqueues is stored after them, and the ones made after it after it.
   * Each runs at the time of its call, not of a connection found or a
   * schema migrated: the server's time then (PostgresClock.at), and this
   * process's wall clock then, which the records' runAfter were set on.
   */
  private inOrder<T>(run: (call: EnqueueCall) => Promise<T>): Promise<T> {
    const call: EnqueueCall = { mono: performance.now(), wallMs: Date.now() };
    const mine = this.tail.then(() => run(call));
    // The next waits for this one to settle; its outcome, error included, is its caller's.
    const settled = (): void => undefined;
    this.tail = mine.then(settled, settled);
    return mine;
  }

  private async storeEach(
    records: readonly TaskRecord[],
    call: EnqueueCall,
  ): Promise<EnqueueOutcome[]> {
    try {
      return await this.connection.transaction(
        (tx) => this.storeEachIn(tx, records, call),
        true,
        (cause) => this.errors.outcomeUnknown(records, cause),
      );
    } catch (error) {
      if (!(error instanceof EnqueueOutcomeUnknownError) || records.length === 1) throw error;
      // Each caller is told of its own task, as its lone enqueue would have been.
      return records.map((record) => this.errors.outcomeUnknown([record], error.cause));
    }
  }

  private async storeEachIn(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    call: EnqueueCall,
  ): Promise<EnqueueOutcome[]> {
    const now = this.connection.clock.at(call.mono);
    const outcomes: EnqueueOutcome[] = [];
    const made: TaskRecord[] = [];
    for (const run of plainRuns(records)) {
      if (run.plain) {
        // Records without a key, ids distinct: one insert for the run, refusals per record.
        const refusals = await this.store(tx, run.records, now, false, call.wallMs);
        run.records.forEach((record, i) => {
          outcomes.push(refusals[i] ?? record);
          if (!refusals[i]) made.push(record);
        });
        continue;
      }
      const [record] = run.records;
      // A refusal undoes only its own record's writes.
      await tx.query('SAVEPOINT keyed');
      try {
        outcomes.push((await this.storeKeyed(tx, [record], now, call.wallMs))[0]);
        await tx.query('RELEASE SAVEPOINT keyed');
      } catch (refusal) {
        if (!(refusal instanceof TaskAlreadyExistsError || refusal instanceof UniqueKeyHeldError))
          throw refusal;
        await tx.query('ROLLBACK TO SAVEPOINT keyed');
        outcomes.push(refusal);
      }
    }
    await this.made(tx, made, now);
    return outcomes;
  }

  /** Rows of unique keys that no longer hold, at most `max`; how many went. */
  forgetFreeKeys(max: number): Promise<number> {
    return this.uniqueKeys.forgetFree(max);
  }

  /**
   * A batch with unique keys: its keys locked, every id checked first, then
   * the keys decided as if the records came one by one, then the writes.
   */
  private async storeKeyed(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    now: number,
    callerNow: number,
    apart = false,
  ): Promise<TaskRecord[]> {
    const keys = records.flatMap((record) => record.task.unique?.key ?? []);
    await this.uniqueKeys.lock(tx, keys);
    for (const record of records) await this.errors.assertFree(tx, record.id, now);
    const holds = await this.uniqueKeys.holds(tx, keys, now);
    const plan = this.rules.planUnique(this.alias, records, (key) => holds.get(key), now);
    const made: TaskRecord[] = [];
    for (const write of plan.writes) {
      if (write.kind === 'replace') {
        await this.uniqueKeys.replace(tx, write.record, now, callerNow);
        continue;
      }
      await this.store(tx, [write.record], now, true, callerNow);
      made.push(write.record);
      if (write.taken) await this.uniqueKeys.take(tx, write.record.id, write.taken);
    }
    // A holder returned or replaced is no new task: only those made are counted and announced.
    await this.made(tx, made, now, apart);
    return plan.returned;
  }

  /**
   * Inserts the records (ready, or deferred until runAfter). Per record the
   * refusal of a taken id (null when stored); with `throwing`, the first is
   * thrown instead, which rolls the transaction back.
   */
  private async store(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    now: number,
    throwing: boolean,
    callerNow: number,
  ): Promise<(TaskAlreadyExistsError | null)[]> {
    // Each runAfter was set on the enqueuer's clock: its wait left at the call, read on that
    // clock (`callerNow`), is added to the server's time of the call (`now`).
    const waits = records.map((record) => delayUntil(record.task.runAfter, callerNow));
    const inserted = await tx.query<{ id: string; data: string | null; progress: string | null }>(
      this.sql.insertTasks,
      [
        this.alias,
        records.map((record) => record.id),
        records.map((record) => record.task.queue),
        records.map((record) => record.task.name),
        waits.map((wait) => (wait > 0 ? 'deferred' : 'ready')),
        records.map(readyScore),
        waits.map((wait) => (wait > 0 ? now + wait : null)),
        records.map((record) => record.workerIds.length),
        records.map(serializeRecord),
        now,
      ],
    );
    const stored = new Set(inserted.map((row) => row.id));
    // A result of the same id that is still kept refuses a record too: its inserted row goes.
    const kept = new Map<string, DataRow>();
    for (const { id, data, progress } of inserted) {
      if (data !== null) kept.set(id, { id, data, progress });
    }
    const refusals: (TaskAlreadyExistsError | null)[] = [];
    for (const record of records) {
      let refusal: TaskAlreadyExistsError | null = null;
      const result = kept.get(record.id);
      if (!stored.has(record.id)) {
        refusal = await this.errors.refusalOf(tx, record.id, now);
      } else if (result) {
        await tx.query(this.sql.deleteTask, [this.alias, record.id]);
        refusal = this.errors.alreadyExists(result);
      }
      if (refusal && throwing) throw refusal;
      refusals.push(refusal);
    }
    this.notices.work(
      tx,
      records.flatMap((record, i) =>
        waits[i] <= 0 && refusals[i] === null ? [record.task.queue] : [],
      ),
    );
    return refusals;
  }

  /**
   * The tasks an enqueue made: counted as ingress (a row per queue and
   * second) and announced. `apart` counts on a connection of the backend's:
   * in the app's transaction the row would stay locked until its commit.
   */
  private async made(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    now: number,
    apart = false,
  ): Promise<void> {
    if (records.length === 0) return;
    const perQueue = new Map<string, number>();
    for (const { task } of records) perQueue.set(task.queue, (perQueue.get(task.queue) ?? 0) + 1);
    const count = [
      this.alias,
      Math.floor(now / 1000),
      [...perQueue.keys()],
      [...perQueue.values()],
    ];
    await (apart
      ? this.connection.query(this.sql.countIngress, count)
      : tx.query(this.sql.countIngress, count));
    this.notices.live(tx, 'enqueued', records);
  }
}
