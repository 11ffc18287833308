import type { Transaction } from 'better-sqlite3';
import type { StoreRules } from '../../core/ports/store-rules.port';
import { holdsLease } from '../../core/holds-lease';
import type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
  RetryOutcome,
} from '../../core/ports/lease-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import { maxOf, type SqliteAcquirer } from './sqlite-acquirer';
import type { SqliteConnection } from './sqlite-connection';
import type { SqliteLiveEvents } from './sqlite-live-events';
import { LIVE_TASK_EXPIRES_AT, type SqliteRows } from './sqlite-rows';

/** Stores finished records, then leases up to `max` tasks (none when 0), in one transaction. */
type AcknowledgeAndTake = (
  finished: readonly TaskRecord[],
  queues: readonly string[],
  workerId: string,
  max: number,
  now: number,
  poolId: string | null,
) => AcknowledgeAndAcquireResult;

/**
 * What a SqliteBackend does with tasks a worker holds: stores their results
 * (acknowledge), sends them back for their next attempt (retry), or puts them
 * back in their ready queue unfinished (release, unlease). Each call is one
 * write transaction, and changes a task only while its lease is still held.
 *
 * @internal
 */
export class SqliteHeldTasks {
  private readonly acknowledgeTx: Transaction<
    (records: readonly TaskRecord[], now: number) => AcknowledgeOutcome[]
  >;
  private readonly acknowledgeAndTakeTx: Transaction<AcknowledgeAndTake>;
  private readonly retryTx: Transaction<
    (records: readonly TaskRecord[], now: number) => RetryOutcome[]
  >;
  private readonly progressTx: Transaction<
    (entries: readonly { record: TaskRecord; stored: string }[], now: number) => boolean[]
  >;
  private readonly releaseOrUnleaseTx: Transaction<
    (records: readonly TaskRecord[], now: number, unstarted: boolean) => number
  >;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly rows: SqliteRows,
    private readonly acquirer: SqliteAcquirer,
    private readonly live: SqliteLiveEvents,
    private readonly rules: StoreRules,
  ) {
    const { db } = connection;
    this.acknowledgeTx = db.transaction((records: readonly TaskRecord[], now: number) =>
      records.map((record) => this.acknowledgeOne(record, now)),
    );
    this.acknowledgeAndTakeTx = db.transaction<AcknowledgeAndTake>(
      (finished, queues, workerId, max, now, poolId) => ({
        acknowledged: finished.map((record) => this.acknowledgeOne(record, now)),
        acquired: max > 0 ? acquirer.take(queues, workerId, max, now, poolId) : [],
      }),
    );
    this.retryTx = db.transaction((records: readonly TaskRecord[], now: number) =>
      records.map((record) => this.retryOne(record, now)),
    );
    this.progressTx = db.transaction(
      (entries: readonly { record: TaskRecord; stored: string }[], now: number) =>
        entries.map(({ record, stored }) => this.progressed(record, stored, now)),
    );
    this.releaseOrUnleaseTx = db.transaction(
      (records: readonly TaskRecord[], now: number, unstarted: boolean) =>
        records.reduce(
          (held, record) => held + this.releaseOrUnleaseOne(record, now, unstarted),
          0,
        ),
    );
  }

  /** Stores the results of the tasks whose lease is still held. */
  acknowledge(records: readonly TaskRecord[]): AcknowledgeOutcome[] {
    if (records.length === 0) return [];
    return this.connection.guard(() => this.acknowledgeTx.immediate(records, Date.now()));
  }

  /** Stores what finished (at least one record), then leases without waiting for work. */
  acknowledgeAndTake(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): AcknowledgeAndAcquireResult {
    // Stopping: what finished is still stored, nothing new is leased.
    const stopping = this.connection.closed || options.signal?.aborted === true;
    // Outcomes are not held back by an idle queue: the caller waits for work with acquire.
    return this.connection.guard(() =>
      this.acknowledgeAndTakeTx.immediate(
        finished,
        queues,
        options.workerId,
        stopping ? 0 : maxOf(options),
        Date.now(),
        options.poolId ?? null,
      ),
    );
  }

  /**
   * Stores each entry's progress while its attempt still holds its task (one
   * statement per entry, and its live event while anyone listens), all in
   * one write transaction; per entry whether it did.
   */
  storeProgress(entries: readonly { record: TaskRecord; stored: string }[]): boolean[] {
    if (entries.length === 0) return [];
    return this.connection.guard(() => this.progressTx.immediate(entries, Date.now()));
  }

  /** Inside progressTx: one entry's progress, if its attempt still holds its task. */
  private progressed(record: TaskRecord, stored: string, now: number): boolean {
    const { tasks } = this.connection.sql;
    const held =
      tasks.updateProgress.run(stored, this.alias, record.id, record.workerIds.length).changes ===
      1;
    if (held) this.live.progressed(record, stored, now);
    return held;
  }

  /** Sends tasks back for their next attempt; the caller checked each is a retry of a configured queue. */
  retry(records: readonly TaskRecord[]): RetryOutcome[] {
    if (records.length === 0) return [];
    const outcomes = this.connection.guard(() => this.retryTx.immediate(records, Date.now()));
    if (outcomes.includes('retried')) this.acquirer.workAdded();
    return outcomes;
  }

  /**
   * Back to the ready queue, unfinished: `unstarted` ones as before their
   * lease (no attempt counted). How many were still held.
   */
  releaseOrUnlease(records: readonly TaskRecord[], unstarted: boolean): number {
    const held = this.connection.guard(() =>
      this.releaseOrUnleaseTx.immediate(records, Date.now(), unstarted),
    );
    if (held > 0) this.acquirer.workAdded();
    return held;
  }

  /** Inside a write transaction: acknowledge one result if its lease is still held. */
  private acknowledgeOne(record: TaskRecord, now: number): AcknowledgeOutcome {
    const { tasks } = this.connection.sql;
    const row = tasks.selectRunning.get(this.alias, record.id);
    if (!row) return notHeld(tasks.selectResult.get(this.alias, record.id, now), record);
    this.rows.finish(record, row, now);
    return 'acknowledged';
  }

  /** Inside retryTx: send one task back for its next attempt if its lease is still held. */
  private retryOne(record: TaskRecord, now: number): RetryOutcome {
    const { tasks } = this.connection.sql;
    const row = tasks.selectRunning.get(this.alias, record.id);
    if (!row) return notHeld(tasks.selectTask.get(this.alias, record.id, now), record);
    this.rows.storeRetry(record, row, now);
    return 'retried';
  }

  /** Inside releaseTx: back to the ready queue at its old place, unfinished. 1 if it was still held. */
  private releaseOrUnleaseOne(record: TaskRecord, now: number, unstarted: boolean): number {
    const { tasks } = this.connection.sql;
    const row = tasks.selectRunning.get(this.alias, record.id);
    if (!row) return 0;
    const stored = this.rows.read(row, now);
    if (!stored) return 0;
    // A task that never started goes back as before its lease, and only while it holds that lease.
    if (unstarted && !holdsLease(stored, record)) return 0;
    const ready = unstarted ? this.rules.unleased(stored) : this.rules.released(stored);
    tasks.markReady.run(LIVE_TASK_EXPIRES_AT, serializeRecord(ready), row.seq);
    return 1;
  }
}

/**
 * What storing `record` found once its lease is no longer held: this very
 * outcome, stored by an earlier call whose reply was lost, or nothing of ours.
 */
function notHeld(
  stored: { data: string } | undefined,
  record: TaskRecord,
): 'already-stored' | 'stale' {
  return stored?.data === serializeRecord(record) ? 'already-stored' : 'stale';
}
