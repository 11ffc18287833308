import type { Database, Statement } from 'better-sqlite3';

/**
 * The statements of retrying or removing a final task by hand, prepared once
 * per connection: its result row (the record and its history entry at once)
 * deleted, and its unique key's row when it still names the task.
 *
 * @internal
 */
export class SqliteFinishedStatements {
  readonly deleteResult: Statement<[alias: string, id: string]>;
  readonly releaseKey: Statement<[alias: string, key: string, holder: string]>;

  constructor(db: Database) {
    this.deleteResult = db.prepare(`DELETE FROM threadmill_results WHERE alias = ? AND id = ?`);
    this.releaseKey = db.prepare(
      `DELETE FROM threadmill_unique_keys WHERE alias = ? AND key = ? AND holder = ?`,
    );
  }
}
