import type { Transaction } from 'better-sqlite3';
import type { StoreRules } from '../../core/ports/store-rules.port';
import { assertDistinctIds } from '../distinct-ids';
import { EnqueueCoalescer, type EnqueueOutcome } from '../enqueue-coalescer';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult, type TaskRecordSource } from '../../core/task-result';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import { taskAlreadyExists } from '../../core/threadmill.messages';
import { delayUntil } from '../run-after';
import type { SqliteConnection } from './sqlite-connection';
import type { SqliteLiveEvents } from './sqlite-live-events';
import { LIVE_TASK_EXPIRES_AT } from './sqlite-rows';
import { SqliteUniqueKeys } from './sqlite-unique-keys';

/** Ready-queue score: priority first, then FIFO by enqueue time, as in the Redis backend. */
export const readyScore = (record: TaskRecord): number =>
  -record.task.priority * 1e13 + record.enqueuedAt.getTime();

/**
 * How a SqliteBackend stores new tasks, a batch in one transaction: all or
 * none (enqueueMany), refused whole when an id is taken, or each (single
 * enqueues gathered by EnqueueCoalescer), where a refusal refuses only its
 * own record.
 *
 * @internal
 */
export class SqliteEnqueuer {
  private readonly enqueueTx: Transaction<
    (records: readonly TaskRecord[], now: number) => readonly TaskRecord[]
  >;
  private readonly eachTx: Transaction<
    (records: readonly TaskRecord[], now: number) => EnqueueOutcome[]
  >;
  private readonly uniqueKeys: SqliteUniqueKeys;
  private readonly coalescer = new EnqueueCoalescer(async (records) => this.enqueueEach(records));

  /**
   * @param results where the TaskResult of an id already taken reads from (the backend).
   * @param workAdded tells this process's idle consumers that tasks became ready.
   * @param live records the tasks made as enqueued while anyone listens.
   */
  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly results: TaskRecordSource,
    private readonly workAdded: () => void,
    private readonly live: SqliteLiveEvents,
    private readonly rules: StoreRules,
  ) {
    this.uniqueKeys = new SqliteUniqueKeys(alias, connection, rules);
    this.enqueueTx = connection.db.transaction((records: readonly TaskRecord[], now: number) => {
      if (!records.some((record) => record.task.unique)) {
        for (const record of records) this.store(record, now);
        this.made(records, now);
        return records;
      }
      return this.storeKeyed(records, now);
    });
    // Each record as if it came alone: what it reads includes what the ones before it wrote.
    this.eachTx = connection.db.transaction((records: readonly TaskRecord[], now: number) => {
      // Keyed records count what they make in storeKeyed; the plain ones stored here, at once.
      const made: TaskRecord[] = [];
      const outcomes = records.map((record) => {
        try {
          if (record.task.unique) return this.storeKeyed([record], now)[0];
          made.push(this.store(record, now));
          return record;
        } catch (refusal) {
          // Refusals are decided before their record writes anything; any other failure rolls back.
          if (refusal instanceof TaskAlreadyExistsError || refusal instanceof UniqueKeyHeldError) {
            return refusal;
          }
          throw refusal;
        }
      });
      this.made(made, now);
      return outcomes;
    });
  }

  /** One task, in one transaction with the other enqueues of this tick (its queue checked already). */
  enqueue(record: TaskRecord): Promise<TaskRecord> {
    return this.coalescer.enqueue(record);
  }

  /**
   * Stores the records (their queues already checked); TaskAlreadyExistsError
   * or UniqueKeyHeldError stores none. Per record, what was stored, or the
   * holder of its unique key returned in its place.
   */
  enqueueMany(records: readonly TaskRecord[]): TaskRecord[] {
    if (records.length === 0) return [];
    assertDistinctIds(records);
    this.coalescer.flush();
    const stored = this.connection.guard(() => this.enqueueTx.immediate(records, Date.now()));
    this.workAdded();
    return [...stored];
  }

  /** Per record, in order, what a lone enqueue of it would return or throw. */
  private enqueueEach(records: readonly TaskRecord[]): EnqueueOutcome[] {
    const outcomes = this.connection.guard(() => this.eachTx.immediate(records, Date.now()));
    this.workAdded();
    return outcomes;
  }

  /** Rows of unique keys that no longer hold, at most `max`; how many went. */
  forgetFreeKeys(max: number): number {
    return this.connection.guard(() => this.uniqueKeys.forgetFree(max, Date.now()));
  }

  /**
   * Inside enqueueTx, a batch with unique keys: every id checked first (a
   * taken id is refused even when its key would return a holder), then the
   * keys decided as if the records came one by one, then the writes.
   */
  private storeKeyed(records: readonly TaskRecord[], now: number): readonly TaskRecord[] {
    for (const record of records) this.assertIdFree(record, now);
    const plan = this.rules.planUnique(
      this.alias,
      records,
      (key) => this.uniqueKeys.holdOf(key, now),
      now,
    );
    const made: TaskRecord[] = [];
    for (const write of plan.writes) {
      if (write.kind === 'replace') {
        this.uniqueKeys.replace(write.record, readyScore(write.record), now);
        continue;
      }
      this.store(write.record, now);
      made.push(write.record);
      if (write.taken) this.uniqueKeys.take(write.record.id, write.taken);
    }
    // A holder returned or replaced is no new task: only those made are counted and announced.
    this.made(made, now);
    return plan.returned;
  }

  /**
   * Inside an enqueue's transaction, the tasks it made: counted as ingress
   * (one row per queue and second, however many tasks) and announced to
   * live listeners.
   */
  private made(records: readonly TaskRecord[], now: number): void {
    const perQueue = new Map<string, number>();
    for (const { task } of records) perQueue.set(task.queue, (perQueue.get(task.queue) ?? 0) + 1);
    const second = Math.floor(now / 1000);
    for (const [queue, count] of perQueue) {
      this.connection.sql.tasks.countIngress.run(this.alias, queue, second, count);
    }
    this.live.enqueued(records, now);
  }

  /**
   * Inside enqueueTx: write the task (ready, or deferred until runAfter);
   * TaskAlreadyExistsError (which rolls the whole transaction back) when its
   * id is live or a result within resultTtl. An expired row the trim has not
   * reached yet is replaced.
   */
  private store(record: TaskRecord, now: number): TaskRecord {
    const { tasks } = this.connection.sql;
    this.assertIdFree(record, now);
    // As on Redis, runAfter becomes the wait left of it, added to the store's clock. Here that
    // is the clock of the process in the transaction: a SQLite store's processes share one
    // machine and so one clock, which only libfaketime per process can make differ.
    const wait = delayUntil(record.task.runAfter, now);
    const deferred = wait > 0;
    tasks.insertTask.run({
      alias: this.alias,
      id: record.id,
      queue: record.task.queue,
      state: deferred ? 'deferred' : 'ready',
      score: readyScore(record),
      runAt: deferred ? now + wait : null,
      expiresAt: LIVE_TASK_EXPIRES_AT,
      data: serializeRecord(record),
    });
    return record;
  }

  private assertIdFree(record: TaskRecord, now: number): void {
    const { tasks } = this.connection.sql;
    const stored =
      tasks.selectTask.get(this.alias, record.id, now) ??
      tasks.selectResult.get(this.alias, record.id, now);
    if (stored) {
      const existing = deserializeRecord(record.id, stored.data);
      throw new TaskAlreadyExistsError(
        taskAlreadyExists(record.id, this.alias, existing.status),
        new TaskResult(existing, this.results),
      );
    }
  }
}
