import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import type { KeyTaken, StoredKeyHold } from '../../core/unique-enqueue-plan';
import type { HolderState } from '../../core/unique-key';
import { delayUntil } from '../run-after';
import type { SqliteConnection } from './sqlite-connection';
import type { StoreRules } from '../../core/ports/store-rules.port';

/**
 * The unique keys of one SQLite alias, read and written only inside the
 * enqueue's transaction (the caller's), so a key is checked and taken in one
 * atomic step across every process of the file.
 *
 * @internal
 */
export class SqliteUniqueKeys {
  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly rules: StoreRules,
  ) {}

  /** The key's hold and its holder's state, or undefined when no row names one. */
  holdOf(key: string, now: number): StoredKeyHold | undefined {
    const { unique, tasks } = this.connection.sql;
    const hold = unique.selectHold.get(this.alias, key);
    if (!hold) return undefined;
    const live = unique.selectHolder.get(this.alias, hold.holder, now);
    let holder: TaskRecord | null = null;
    let state: HolderState = 'gone';
    if (live) {
      holder = deserializeRecord(hold.holder, live.data);
      if (live.state === 'running') state = 'running';
      else state = holder.workerIds.length === 0 ? 'fresh' : 'started';
    } else {
      const result = tasks.selectResult.get(this.alias, hold.holder, now);
      if (result) {
        holder = deserializeRecord(hold.holder, result.data);
        state = 'final';
      }
    }
    return { holderId: hold.holder, windowEnd: hold.windowEnd, holder, state };
  }

  /** A task retried by hand takes its key back, where keyTakenBack says so. */
  takeBack(retried: TaskRecord, now: number): void {
    const taken = this.rules.keyTakenBack(retried, (key) => this.holdOf(key, now), now);
    if (taken) this.take(retried.id, taken);
  }

  /** `holderId` takes the key. */
  take(holderId: string, taken: KeyTaken): void {
    this.connection.sql.unique.takeKey.run({
      alias: this.alias,
      key: taken.key,
      holder: holderId,
      mode: taken.mode,
      windowEnd: taken.windowEnd,
    });
  }

  /** A waiting task's row given `record` (debounce): its new data, due time and score. */
  replace(record: TaskRecord, score: number, now: number): void {
    const wait = delayUntil(record.task.runAfter, now);
    this.connection.sql.unique.replaceWaiting.run({
      alias: this.alias,
      id: record.id,
      state: wait > 0 ? 'deferred' : 'ready',
      score,
      runAt: wait > 0 ? now + wait : null,
      data: serializeRecord(record),
    });
  }

  /** Rows of keys that no longer hold, at most `max`; how many went. */
  forgetFree(max: number, now: number): number {
    return this.connection.sql.unique.forgetFree.run({ alias: this.alias, now, max }).changes;
  }
}
