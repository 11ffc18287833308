import type {
  ScheduleEntry,
  ScheduleLastTick,
  ScheduleStore,
  StoredSchedule,
} from '../../core/ports/schedule-store.port';
import type { PostgresConnection } from './postgres-connection';

/** A schedule row as the statements select it. */
interface ScheduleRow {
  id: string;
  definition: string;
  origin: 'declared' | 'runtime';
  app: string | null;
  paused: boolean;
  next_tick: number | null;
  last_tick: number | null;
  last_task_id: string | null;
}

const COLUMNS = 'id, definition, origin, app, paused, next_tick, last_tick, last_task_id';

/**
 * What a Postgres alias stores for schedules: one row each. Every write is
 * one statement; the cursor's compare-and-set is an UPDATE guarded by the
 * cursor read, so of two processes racing only one moves it. The store's
 * clock is the calling process's, as for every other time this backend keeps.
 *
 * @internal
 */
export class PostgresSchedules implements ScheduleStore {
  private readonly sql: Record<
    'upsert' | 'remove' | 'selectOne' | 'selectAll' | 'selectDue' | 'advance',
    string
  >;

  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    s: string,
  ) {
    this.sql = {
      upsert: `
        INSERT INTO ${s}.threadmill_schedules (alias, id, definition, origin, app, paused, next_tick)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (alias, id) DO UPDATE SET definition = excluded.definition,
          origin = excluded.origin, app = excluded.app, paused = excluded.paused,
          next_tick = excluded.next_tick`,
      remove: `DELETE FROM ${s}.threadmill_schedules WHERE alias = $1 AND id = $2 RETURNING id`,
      selectOne: `SELECT ${COLUMNS} FROM ${s}.threadmill_schedules WHERE alias = $1 AND id = $2`,
      selectAll: `SELECT ${COLUMNS} FROM ${s}.threadmill_schedules WHERE alias = $1 ORDER BY id`,
      selectDue: `
        SELECT ${COLUMNS} FROM ${s}.threadmill_schedules
        WHERE alias = $1 AND next_tick IS NOT NULL AND next_tick <= $2
        ORDER BY next_tick LIMIT $3`,
      // One statement is the compare-and-set: it changes the row only while the cursor is `from`.
      advance: `
        UPDATE ${s}.threadmill_schedules SET next_tick = $4,
          last_tick = COALESCE($5, last_tick), last_task_id = COALESCE($6, last_task_id)
        WHERE alias = $1 AND id = $2 AND next_tick = $3 RETURNING id`,
    };
  }

  /** The server's clock (PostgresClock), which every schedule cursor is on. */
  scheduleClock(): Promise<number> {
    return this.connection.storeNow();
  }

  async putSchedule(entry: ScheduleEntry): Promise<void> {
    await this.connection.query(this.sql.upsert, [
      this.alias,
      entry.id,
      entry.definition,
      entry.origin,
      entry.app,
      entry.paused,
      entry.nextTickMs,
    ]);
  }

  async removeSchedule(id: string): Promise<boolean> {
    return (await this.connection.query(this.sql.remove, [this.alias, id])).length > 0;
  }

  async getSchedule(id: string): Promise<StoredSchedule | null> {
    const [row] = await this.connection.query<ScheduleRow>(this.sql.selectOne, [this.alias, id]);
    return row ? fromRow(row) : null;
  }

  async listSchedules(): Promise<StoredSchedule[]> {
    return (await this.connection.query<ScheduleRow>(this.sql.selectAll, [this.alias])).map(
      fromRow,
    );
  }

  async dueSchedules(max: number): Promise<{ nowMs: number; due: StoredSchedule[] }> {
    const nowMs = await this.connection.storeNow();
    const rows = await this.connection.query<ScheduleRow>(this.sql.selectDue, [
      this.alias,
      nowMs,
      max,
    ]);
    return { nowMs, due: rows.map(fromRow) };
  }

  async advanceSchedule(
    id: string,
    fromMs: number,
    toMs: number,
    lastTick: ScheduleLastTick | null,
  ): Promise<boolean> {
    if (toMs <= fromMs) return false;
    const rows = await this.connection.query(this.sql.advance, [
      this.alias,
      id,
      fromMs,
      toMs,
      lastTick?.tickMs ?? null,
      lastTick?.taskId ?? null,
    ]);
    return rows.length > 0;
  }
}

function fromRow(row: ScheduleRow): StoredSchedule {
  return {
    id: row.id,
    definition: row.definition,
    origin: row.origin,
    app: row.app,
    paused: row.paused,
    nextTickMs: row.next_tick,
    lastTick:
      row.last_tick === null || row.last_task_id === null
        ? null
        : { tickMs: row.last_tick, taskId: row.last_task_id },
  };
}
