import type { Database, Statement } from 'better-sqlite3';

import type { TaskState } from './sqlite-schema';

/** A unique key's row. */
export interface KeyHoldRow {
  holder: string;
  windowEnd: number | null;
}

/** A live task's row as the key check reads its holder. */
export interface HolderRow {
  state: TaskState;
  data: string;
}

/**
 * The statements of unique keys (threadmill_unique_keys), prepared once per
 * connection: the hold and its holder read, the key taken, a debounced task
 * replaced, and holds that no longer hold forgotten.
 *
 * @internal
 */
export class SqliteUniqueStatements {
  readonly selectHold: Statement<[alias: string, key: string], KeyHoldRow>;
  readonly selectHolder: Statement<[alias: string, id: string, now: number], HolderRow>;
  readonly takeKey: Statement<
    [
      {
        alias: string;
        key: string;
        holder: string;
        mode: string;
        windowEnd: number | null;
      },
    ]
  >;
  readonly replaceWaiting: Statement<
    [
      {
        alias: string;
        id: string;
        state: TaskState;
        score: number;
        runAt: number | null;
        data: string;
      },
    ]
  >;
  readonly forgetFree: Statement<[{ alias: string; now: number; max: number }]>;

  constructor(db: Database) {
    this.selectHold = db.prepare(`
      SELECT holder, window_end AS windowEnd FROM threadmill_unique_keys WHERE alias = ? AND key = ?`);
    this.selectHolder = db.prepare(`
      SELECT state, data FROM threadmill_tasks WHERE alias = ? AND id = ? AND expires_at > ?`);
    this.takeKey = db.prepare(`
      INSERT INTO threadmill_unique_keys (alias, key, holder, mode, window_end)
      VALUES (@alias, @key, @holder, @mode, @windowEnd)
      ON CONFLICT (alias, key) DO UPDATE SET
        holder = excluded.holder, mode = excluded.mode, window_end = excluded.window_end`);
    this.replaceWaiting = db.prepare(`
      UPDATE threadmill_tasks SET state = @state, score = @score, run_at = @runAt, data = @data
      WHERE alias = @alias AND id = @id AND state IN ('ready', 'deferred')`);
    // A key holds while its window lasts or its holder is a live task; a row past both goes.
    this.forgetFree = db.prepare(`
      DELETE FROM threadmill_unique_keys WHERE rowid IN (
        SELECT u.rowid FROM threadmill_unique_keys u
        WHERE u.alias = @alias AND (u.window_end IS NULL OR u.window_end <= @now)
          AND NOT EXISTS (SELECT 1 FROM threadmill_tasks t
            WHERE t.alias = u.alias AND t.id = u.holder AND t.expires_at > @now)
        LIMIT @max)`);
  }
}
