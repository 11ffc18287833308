import type {
  ScheduleEntry,
  ScheduleLastTick,
  ScheduleStore,
  StoredSchedule,
} from '../../core/ports/schedule-store.port';
import type { SqliteConnection } from './sqlite-connection';
import type { ScheduleRow } from './sqlite-schedule-statements';

/**
 * What a SQLite alias stores for schedules: one row each. Every write is one
 * statement (atomic by itself); the cursor's compare-and-set is an UPDATE
 * guarded by the cursor read, so of two processes racing on one file only
 * one moves it. The store's clock is this machine's, which every process of
 * the file shares.
 *
 * @internal
 */
export class SqliteSchedules implements ScheduleStore {
  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
  ) {}

  private get sql() {
    return this.connection.sql.schedules;
  }

  async scheduleClock(): Promise<number> {
    return Date.now();
  }

  async putSchedule(entry: ScheduleEntry): Promise<void> {
    this.connection.guard(() =>
      this.sql.upsert.run(
        this.alias,
        entry.id,
        entry.definition,
        entry.origin,
        entry.app,
        entry.paused ? 1 : 0,
        entry.nextTickMs,
      ),
    );
  }

  async removeSchedule(id: string): Promise<boolean> {
    return this.connection.guard(() => this.sql.remove.run(this.alias, id).changes > 0);
  }

  async getSchedule(id: string): Promise<StoredSchedule | null> {
    const row = this.connection.guard(() => this.sql.selectOne.get(this.alias, id));
    return row ? fromRow(row) : null;
  }

  async listSchedules(): Promise<StoredSchedule[]> {
    return this.connection.guard(() => this.sql.selectAll.all(this.alias)).map(fromRow);
  }

  async dueSchedules(max: number): Promise<{ nowMs: number; due: StoredSchedule[] }> {
    const nowMs = Date.now();
    const rows = this.connection.guard(() => this.sql.selectDue.all(this.alias, nowMs, max));
    return { nowMs, due: rows.map(fromRow) };
  }

  async advanceSchedule(
    id: string,
    fromMs: number,
    toMs: number,
    lastTick: ScheduleLastTick | null,
  ): Promise<boolean> {
    if (toMs <= fromMs) return false;
    const { changes } = this.connection.guard(() =>
      this.sql.advance.run(
        toMs,
        lastTick?.tickMs ?? null,
        lastTick?.taskId ?? null,
        this.alias,
        id,
        fromMs,
      ),
    );
    return changes > 0;
  }
}

function fromRow(row: ScheduleRow): StoredSchedule {
  return {
    id: row.id,
    definition: row.definition,
    origin: row.origin,
    app: row.app,
    paused: row.paused === 1,
    nextTickMs: row.next_tick,
    lastTick:
      row.last_tick === null || row.last_task_id === null
        ? null
        : { tickMs: row.last_tick, taskId: row.last_task_id },
  };
}
