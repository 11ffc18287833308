import type { StoreRules } from '../../core/ports/store-rules.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import type { KeyTaken, StoredKeyHold } from '../../core/unique-enqueue-plan';
import type { HolderState } from '../../core/unique-key';
import { delayUntil } from '../run-after';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import { lockKey } from './postgres-names';
import type { PostgresNotices } from './postgres-notices';
import { readyScore } from './postgres-rows';
import type { HolderRow, PostgresUniqueStatements } from './postgres-unique-statements';

/**
 * The unique keys of one Postgres alias, read and written inside the
 * caller's transaction: each key is locked first (an advisory lock of the
 * transaction, so a key not stored yet is locked too), its live holder row
 * locked, so a key is checked and taken in one atomic step across every
 * process of the database.
 *
 * @internal
 */
export class PostgresUniqueKeys {
  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresUniqueStatements,
    private readonly notices: PostgresNotices,
    private readonly rules: StoreRules,
  ) {}

  /** Locks `keys` until the transaction ends (sorted, so two transactions never deadlock). */
  async lock(tx: PostgresTx, keys: Iterable<string>): Promise<void> {
    const locks = [...new Set(keys)]
      .map((key) => lockKey('unique', this.connection.schema, this.alias, key))
      .sort();
    if (locks.length > 0) await tx.query(this.sql.lockKeys, [locks]);
  }

  /** Each key's hold as stored (after `lock`), for the rule's synchronous look-ups. */
  async holds(
    tx: PostgresTx,
    keys: readonly string[],
    now: number,
  ): Promise<Map<string, StoredKeyHold>> {
    const holds = new Map<string, StoredKeyHold>();
    if (keys.length === 0) return holds;
    const rows = await tx.query<{
      key: string;
      holder: string;
      window_end: number | string | null;
    }>(this.sql.selectHolds, [this.alias, keys]);
    if (rows.length === 0) return holds;
    const ids = rows.map((row) => row.holder);
    const holders = new Map<string, HolderRow>();
    for (const row of await tx.query<HolderRow>(this.sql.selectLiveHolders, [this.alias, ids])) {
      holders.set(row.id, row);
    }
    const missing = ids.filter((id) => !holders.has(id));
    if (missing.length > 0) {
      const results = await tx.query<HolderRow>(this.sql.selectResultHolders, [
        this.alias,
        missing,
        now,
      ]);
      for (const row of results) holders.set(row.id, row);
    }
    for (const row of rows) {
      const found = holders.get(row.holder);
      let holder: TaskRecord | null = null;
      let state: HolderState = 'gone';
      if (found) {
        holder = deserializeRecord(found.id, found.data);
        if (found.state === null) state = 'final';
        else if (found.state === 'running') state = 'running';
        else state = holder.workerIds.length === 0 ? 'fresh' : 'started';
      }
      // A bigint: a number on the backend's own connections, a string on an app's (TaskTransaction).
      const windowEnd = row.window_end === null ? null : Number(row.window_end);
      holds.set(row.key, { holderId: row.holder, windowEnd, holder, state });
    }
    return holds;
  }

  /** A task retried by hand takes its key back, where keyTakenBack says so. */
  async takeBack(tx: PostgresTx, retried: TaskRecord, now: number): Promise<void> {
    const key = retried.task.unique?.key;
    if (key === undefined) return;
    await this.lock(tx, [key]);
    const holds = await this.holds(tx, [key], now);
    const taken = this.rules.keyTakenBack(retried, (k) => holds.get(k), now);
    if (taken) await this.take(tx, retried.id, taken);
  }

  /** `holderId` takes the key. */
  async take(tx: PostgresTx, holderId: string, taken: KeyTaken): Promise<void> {
    await tx.query(this.sql.takeKey, [
      this.alias,
      taken.key,
      holderId,
      taken.mode,
      taken.windowEnd,
    ]);
  }

  /**
   * A waiting task's row given `record` (debounce): its new data, due time
   * and score. The record is the enqueuer's: its runAfter's wait left at
   * `callerNow` (the enqueuer's clock) is added to the server's `now`.
   */
  async replace(tx: PostgresTx, record: TaskRecord, now: number, callerNow: number): Promise<void> {
    const wait = delayUntil(record.task.runAfter, callerNow);
    await tx.query(this.sql.replaceWaiting, [
      this.alias,
      record.id,
      wait > 0 ? 'deferred' : 'ready',
      readyScore(record),
      wait > 0 ? now + wait : null,
      record.task.name,
      record.workerIds.length,
      serializeRecord(record),
    ]);
    if (wait <= 0) this.notices.work(tx, [record.task.queue]);
  }

  /** Deletes the key's row while it names `holderId` (a removed task). */
  async release(tx: PostgresTx, key: string, holderId: string): Promise<void> {
    await this.lock(tx, [key]);
    await tx.query(this.sql.releaseKey, [this.alias, key, holderId]);
  }

  /** Rows of keys that no longer hold, at most `max` looked at; how many went. */
  async forgetFree(max: number): Promise<number> {
    return this.connection.transaction(async (tx) => {
      const now = this.connection.clock.now();
      const rows = await tx.query<{ key: string }>(this.sql.selectFree, [this.alias, now, max]);
      if (rows.length === 0) return 0;
      const keys = rows.map((row) => row.key);
      // Checked again under the keys' locks: an enqueue may have taken one since.
      await this.lock(tx, keys);
      const deleted = await tx.query(`${this.sql.deleteFree} RETURNING 1`, [this.alias, now, keys]);
      return deleted.length;
    }, false);
  }
}
