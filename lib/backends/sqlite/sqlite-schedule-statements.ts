import type { Database, Statement } from 'better-sqlite3';

/** A schedule row as the statements select it. */
export interface ScheduleRow {
  id: string;
  definition: string;
  origin: 'declared' | 'runtime';
  app: string | null;
  paused: number;
  next_tick: number | null;
  last_tick: number | null;
  last_task_id: string | null;
}

const COLUMNS = 'id, definition, origin, app, paused, next_tick, last_tick, last_task_id';

/**
 * The statements on schedules, prepared once per connection.
 *
 * @internal
 */
export class SqliteScheduleStatements {
  readonly upsert: Statement<
    [
      alias: string,
      id: string,
      definition: string,
      origin: string,
      app: string | null,
      paused: number,
      nextTick: number | null,
    ]
  >;
  readonly remove: Statement<[alias: string, id: string]>;
  readonly selectOne: Statement<[alias: string, id: string], ScheduleRow>;
  readonly selectAll: Statement<[alias: string], ScheduleRow>;
  readonly selectDue: Statement<[alias: string, now: number, limit: number], ScheduleRow>;
  readonly advance: Statement<
    [
      nextTick: number,
      lastTick: number | null,
      lastTaskId: string | null,
      alias: string,
      id: string,
      from: number,
    ]
  >;

  constructor(db: Database) {
    this.upsert = db.prepare(`
      INSERT INTO threadmill_schedules (alias, id, definition, origin, app, paused, next_tick)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (alias, id) DO UPDATE SET definition = excluded.definition,
        origin = excluded.origin, app = excluded.app, paused = excluded.paused,
        next_tick = excluded.next_tick`);
    this.remove = db.prepare(`DELETE FROM threadmill_schedules WHERE alias = ? AND id = ?`);
    this.selectOne = db.prepare(
      `SELECT ${COLUMNS} FROM threadmill_schedules WHERE alias = ? AND id = ?`,
    );
    this.selectAll = db.prepare(
      `SELECT ${COLUMNS} FROM threadmill_schedules WHERE alias = ? ORDER BY id`,
    );
    this.selectDue = db.prepare(`
      SELECT ${COLUMNS} FROM threadmill_schedules INDEXED BY threadmill_schedules_due
      WHERE alias = ? AND next_tick IS NOT NULL AND next_tick <= ?
      ORDER BY next_tick LIMIT ?`);
    // One statement is the compare-and-set: it changes the row only while the cursor is `from`.
    this.advance = db.prepare(`
      UPDATE threadmill_schedules SET next_tick = ?,
        last_tick = COALESCE(?, last_tick), last_task_id = COALESCE(?, last_task_id)
      WHERE alias = ? AND id = ? AND next_tick = ?`);
  }
}
