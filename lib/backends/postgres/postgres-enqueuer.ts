import { performance } from 'node:perf_hooks';

import type { StoreRules } from '../../core/ports/store-rules.port';
import { EnqueueCoalescer, type EnqueueOutcome } from '../enqueue-coalescer';
import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import type { TaskRecord } from '../../core/task-record.interface';
import type { TaskRecordSource } from '../../core/task-result';
import { assertDistinctIds } from '../distinct-ids';
import type { TaskTransaction } from '../../core/task-transaction';
import type { PostgresAppTransaction } from './postgres-app-transaction';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import { PostgresEnqueueCall, type EnqueueCall } from './postgres-enqueue-call';
import { PostgresEnqueueErrors } from './postgres-enqueue-errors';
import { plainRuns, type EnqueueRun } from './postgres-enqueue-runs';
import type { PostgresTaskStatements } from './postgres-task-statements';
import type { PostgresUniqueKeys } from './postgres-unique-keys';

/** The first refusal of an all-or-none batch, thrown: none of it was stored. */
function throwRefused(refusals: readonly (TaskAlreadyExistsError | null)[]): void {
  const refusal = refusals.find((found) => found !== null);
  if (refusal) throw refusal;
}

/**
 * How a PostgresBackend stores new tasks, a batch at a time: all or none
 * (enqueueMany, refused whole when an id is taken), or each (single
 * enqueues gathered by EnqueueCoalescer), where a refusal refuses only its
 * own record. Records without a unique key are stored by one call of
 * threadmill_enqueue (PostgresEnqueueCall), one round trip; a batch with
 * keys runs in a transaction of its own, its keys locked and decided by
 * the rules first.
 *
 * @internal
 */
export class PostgresEnqueuer {
  private readonly coalescer = new EnqueueCoalescer(async (records) => this.enqueueEach(records));
  private readonly errors: PostgresEnqueueErrors;
  private readonly calls: PostgresEnqueueCall;
  /** The last enqueue asked for; the next one starts once it settled. */
  private tail: Promise<void> = Promise.resolve();

  /** @param results where the TaskResult of an id already taken reads from (the backend). */
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    sql: PostgresTaskStatements,
    private readonly uniqueKeys: PostgresUniqueKeys,
    notices: PostgresNotices,
    results: TaskRecordSource,
    private readonly rules: StoreRules,
    private readonly app: PostgresAppTransaction,
  ) {
    this.errors = new PostgresEnqueueErrors(alias, sql, results);
    this.calls = new PostgresEnqueueCall(alias, connection, notices, this.errors);
  }

  /** One task, in one call with the other enqueues of this tick. */
  enqueue(record: TaskRecord): Promise<TaskRecord> {
    return this.coalescer.enqueue(record);
  }

  /** Stores the records, all or none; per record what was stored or the key's holder. */
  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    if (records.length === 0) return [];
    assertDistinctIds(records);
    this.coalescer.flush();
    if (records.some((record) => record.task.unique)) {
      return this.inOrder((call) => this.storeMany(records, call));
    }
    return this.inOrder(async (call) => {
      throwRefused(await this.calls.alone(this.input(records, call, true), this.unknown(records)));
      return [...records];
    });
  }

  /**
   * Stores the records inside the app's open transaction, all or none, as
   * enqueueMany does in one of its own: not in the order of this backend's
   * own enqueues, since the app's commit decides when they count. Records
   * without a key take one statement in it (a batch too: a refusal undoes
   * that statement's own rows, so no savepoint is needed).
   */
  async enqueueInTransaction(
    transaction: TaskTransaction,
    records: readonly TaskRecord[],
  ): Promise<TaskRecord[]> {
    if (records.length === 0) return [];
    assertDistinctIds(records);
    const call: EnqueueCall = { mono: performance.now(), wallMs: Date.now() };
    const keyed = records.some((record) => record.task.unique);
    return this.app.run(this.alias, transaction, keyed && records.length > 1, (tx) =>
      this.writeMany(tx, records, call, 'app'),
    );
  }

  private storeMany(records: readonly TaskRecord[], call: EnqueueCall): Promise<TaskRecord[]> {
    return this.connection.transaction(
      (tx) => this.writeMany(tx, records, call, 'tx'),
      true,
      this.unknown(records),
    );
  }

  /** The writes of an all-or-none batch in `tx`; a refusal is thrown, and the caller undoes them. */
  private async writeMany(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    call: EnqueueCall,
    place: 'tx' | 'app',
  ): Promise<TaskRecord[]> {
    if (!records.some((record) => record.task.unique)) {
      throwRefused(await this.calls.in(tx, this.input(records, call, true), place));
      return [...records];
    }
    return this.storeKeyed(tx, records, call, place);
  }

  /** Per record, in order, what a lone enqueue of it would return or throw. */
  private enqueueEach(records: readonly TaskRecord[]): Promise<EnqueueOutcome[]> {
    return this.inOrder((call) => this.storeEach(records, call));
  }

  /**
   * Runs the enqueues of this backend one after another, in call order, as
   * a store with one writer would: a bulk made after single enqueues is
   * stored after them, and the ones made after it after it. Each runs at
   * the time of its call, not of a connection found or a schema migrated:
   * the server's time then (PostgresClock.at), and this process's wall
   * clock then, which the records' runAfter were set on.
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
    const runs = plainRuns(records);
    try {
      if (runs.length === 1 && runs[0].plain) {
        // Records without a key, ids distinct: one call, refusals per record.
        const refusals = await this.calls.alone(
          this.input(records, call, false),
          this.unknown(records),
        );
        return records.map((record, i) => refusals[i] ?? record);
      }
      return await this.connection.transaction(
        (tx) => this.storeEachIn(tx, runs, call),
        true,
        this.unknown(records),
      );
    } catch (error) {
      if (!(error instanceof EnqueueOutcomeUnknownError) || records.length === 1) throw error;
      // Each caller is told of its own task, as its lone enqueue would have been.
      return records.map((record) => this.errors.outcomeUnknown([record], error.cause));
    }
  }

  private async storeEachIn(
    tx: PostgresTx,
    runs: readonly EnqueueRun[],
    call: EnqueueCall,
  ): Promise<EnqueueOutcome[]> {
    const outcomes: EnqueueOutcome[] = [];
    for (const run of runs) {
      if (run.plain) {
        const refusals = await this.calls.in(tx, this.input(run.records, call, false), 'tx');
        run.records.forEach((record, i) => outcomes.push(refusals[i] ?? record));
        continue;
      }
      const [record] = run.records;
      // A refusal undoes only its own record's writes.
      await tx.query('SAVEPOINT keyed');
      try {
        outcomes.push((await this.storeKeyed(tx, [record], call, 'tx'))[0]);
        await tx.query('RELEASE SAVEPOINT keyed');
      } catch (refusal) {
        if (!(refusal instanceof TaskAlreadyExistsError || refusal instanceof UniqueKeyHeldError))
          throw refusal;
        await tx.query('ROLLBACK TO SAVEPOINT keyed');
        outcomes.push(refusal);
      }
    }
    return outcomes;
  }

  /** Rows of unique keys that no longer hold, at most `max`; how many went. */
  forgetFreeKeys(max: number): Promise<number> {
    return this.uniqueKeys.forgetFree(max);
  }

  /**
   * A batch with unique keys: its keys locked, every id checked first, then
   * the keys decided as if the records came one by one, then the writes.
   * A holder returned or replaced is no new task: only those made are
   * counted and announced.
   */
  private async storeKeyed(
    tx: PostgresTx,
    records: readonly TaskRecord[],
    call: EnqueueCall,
    place: 'tx' | 'app',
  ): Promise<TaskRecord[]> {
    const now = this.connection.clock.at(call.mono);
    const keys = records.flatMap((record) => record.task.unique?.key ?? []);
    await this.uniqueKeys.lock(tx, keys);
    for (const record of records) await this.errors.assertFree(tx, record.id, now);
    const holds = await this.uniqueKeys.holds(tx, keys, now);
    const plan = this.rules.planUnique(this.alias, records, (key) => holds.get(key), now);
    const made: TaskRecord[] = [];
    for (const write of plan.writes) {
      if (write.kind === 'replace') {
        await this.uniqueKeys.replace(tx, write.record, now, call.wallMs);
        continue;
      }
      throwRefused(
        await this.calls.in(tx, { records: [write.record], call, allOrNone: true }, place),
      );
      made.push(write.record);
      if (write.taken) await this.uniqueKeys.take(tx, write.record.id, write.taken);
    }
    return plan.returned;
  }

  private input(records: readonly TaskRecord[], call: EnqueueCall, allOrNone: boolean) {
    return { records, call, allOrNone };
  }

  private unknown(records: readonly TaskRecord[]) {
    return (cause: unknown) => this.errors.outcomeUnknown(records, cause);
  }
}
