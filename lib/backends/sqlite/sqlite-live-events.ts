import type { Transaction } from 'better-sqlite3';
import type { LiveTaskEventName } from '../../core/live-task-feed';
import type { TaskRecord } from '../../core/task-record.interface';
import type { SqliteConnection } from './sqlite-connection';
import { LIVE_EVENTS_KEPT } from './sqlite-live-statements';

type Append = (
  event: LiveTaskEventName,
  records: readonly TaskRecord[],
  progress: string | null,
) => void;

/**
 * How the SQLite backend's writing steps record live task events: one
 * indexed read of the listener rows per step that enqueued, leased or
 * stored progress, and, only while a listener's row is live, a row per event
 * (threadmill_live_events), the oldest beyond LIVE_EVENTS_KEPT dropped in
 * the same transaction. Listeners read them with SqliteLiveFeed.
 *
 * @internal
 */
export class SqliteLiveEvents {
  private readonly appendTx: Transaction<Append>;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
  ) {
    const { live } = connection.sql;
    this.appendTx = connection.db.transaction<Append>((event, records, progress) => {
      for (const { id, task } of records) {
        live.append.run(alias, event, id, task.queue, task.name, progress);
      }
      live.trim.run(LIVE_EVENTS_KEPT);
    });
  }

  /** The tasks one enqueue stored (inside its transaction, which this joins). */
  enqueued(records: readonly TaskRecord[], now: number): void {
    if (records.length > 0 && this.listened(now)) this.appendTx('enqueued', records, null);
  }

  /** The tasks one lease took (inside its transaction, which this joins). */
  started(records: readonly TaskRecord[], now: number): void {
    if (records.length > 0 && this.listened(now)) this.appendTx('started', records, null);
  }

  /** A progress stored for `record`, as stored (inside its transaction, which this joins). */
  progressed(record: TaskRecord, stored: string, now: number): void {
    if (this.listened(now)) this.appendTx('progressed', [record], stored);
  }

  private listened(now: number): boolean {
    return this.connection.sql.live.listened.get(this.alias, now) !== undefined;
  }
}
