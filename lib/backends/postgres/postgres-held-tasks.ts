import { holdsLease } from '../../core/holds-lease';
import type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
  RetryOutcome,
} from '../../core/ports/lease-store.port';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import { maxOf, type PostgresAcquirer } from './postgres-acquirer';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresRows } from './postgres-rows';
import type { DataRow, PostgresTaskStatements, TaskRow } from './postgres-task-statements';

/**
 * What a PostgresBackend does with tasks a worker holds: stores their
 * results (acknowledge), sends them back for their next attempt (retry), or
 * puts them back in their ready queue unfinished (release, unlease). Each
 * call is one transaction, and changes a task only while its row is still
 * running, read FOR UPDATE (compare-and-set: of two callers, one wins).
 * Records are taken in id order, so two calls never deadlock on their rows.
 * Results are stored by threadmill_lease (PostgresAcquirer), one statement
 * whatever their number, with or without a lease.
 *
 * @internal
 */
export class PostgresHeldTasks {
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresTaskStatements,
    private readonly rows: PostgresRows,
    private readonly acquirer: PostgresAcquirer,
    private readonly notices: PostgresNotices,
    private readonly rules: StoreRules,
  ) {}

  /** Stores results in one round trip, as acknowledgeAndTake does, leasing nothing. */
  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    if (records.length === 0) return [];
    return this.acquirer.store(records);
  }

  /** Stores what finished (at least one record), then leases without waiting for work. */
  async acknowledgeAndTake(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    // Stopping: what finished is still stored, nothing new is leased.
    const stopping = this.connection.closed || options.signal?.aborted === true;
    const { acknowledged, acquired } = await this.acquirer.leaseNow(
      finished,
      queues,
      options.workerId,
      stopping ? 0 : maxOf(options),
      options.poolId ?? null,
    );
    return { acknowledged, acquired };
  }

  /** Each entry's progress while its attempt still holds its task; per entry whether it did. */
  async storeProgress(
    entries: readonly { record: TaskRecord; stored: string }[],
  ): Promise<boolean[]> {
    if (entries.length === 0) return [];
    return this.connection.transaction(async (tx) => {
      const held: boolean[] = [];
      for (const { record, stored } of entries) {
        const updated = await tx.query(`${this.sql.updateProgress} RETURNING 1`, [
          this.alias,
          record.id,
          stored,
          record.workerIds.length,
        ]);
        held.push(updated.length === 1);
        if (updated.length === 1) this.notices.live(tx, 'progressed', [record], stored);
      }
      return held;
    });
  }

  /** Sends tasks back for their next attempt. */
  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    if (records.length === 0) return [];
    return this.connection.transaction((tx) =>
      inIdOrder(records, async (record): Promise<RetryOutcome> => {
        const now = this.connection.clock.now();
        const row = await this.running(tx, record.id);
        if (!row) {
          const [stored] = await tx.query<DataRow>(this.sql.selectTask, [this.alias, record.id]);
          return notHeld(stored, record);
        }
        await this.rows.storeRetry(tx, record, row, now);
        return 'retried';
      }),
    );
  }

  /** Back to the ready queue, unfinished: `unstarted` ones as before their lease. How many were held. */
  async releaseOrUnlease(records: readonly TaskRecord[], unstarted: boolean): Promise<number> {
    if (records.length === 0) return 0;
    const held = await this.connection.transaction((tx) =>
      inIdOrder(records, async (record): Promise<number> => {
        const now = this.connection.clock.now();
        const row = await this.running(tx, record.id);
        if (!row) return 0;
        const stored = await this.rows.read(tx, row, now);
        if (!stored) return 0;
        // A task that never started goes back as before its lease, and only while it holds that lease.
        if (unstarted && !holdsLease(stored, record)) return 0;
        const ready = unstarted ? this.rules.unleased(stored) : this.rules.released(stored);
        await tx.query(this.sql.markReady, [
          this.alias,
          record.id,
          ready.workerIds.length,
          serializeRecord(ready),
        ]);
        this.notices.work(tx, [row.queue]);
        return 1;
      }),
    );
    return held.reduce((sum, one) => sum + one, 0);
  }

  private async running(tx: PostgresTx, id: string): Promise<TaskRow | undefined> {
    const [row] = await tx.query<TaskRow>(this.sql.selectRunning, [this.alias, id]);
    return row;
  }
}

/** `apply` to each record in id order (their rows locked in one order); the outcomes in call order. */
async function inIdOrder<T>(
  records: readonly TaskRecord[],
  apply: (record: TaskRecord) => Promise<T>,
): Promise<T[]> {
  const order = records
    .map((_, i) => i)
    .sort((a, b) => compareIds(records[a].id, records[b].id) || a - b);
  const outcomes = new Array<T>(records.length);
  for (const i of order) outcomes[i] = await apply(records[i]);
  return outcomes;
}

/**
 * What storing `record` found once its lease is no longer held: this very
 * outcome, stored by an earlier call whose reply was lost, or nothing of ours.
 */
function notHeld(stored: DataRow | undefined, record: TaskRecord): 'already-stored' | 'stale' {
  return stored?.data === serializeRecord(record) ? 'already-stored' : 'stale';
}

/** Ids by code point, the order the lease function locks them in (COLLATE "C"). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
