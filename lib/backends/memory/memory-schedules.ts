import type {
  ScheduleEntry,
  ScheduleLastTick,
  ScheduleStore,
  StoredSchedule,
} from '../../core/ports/schedule-store.port';

/**
 * What a MemoryBackend stores for schedules: one map by id. Each call is one
 * synchronous change, so the compare-and-set of a cursor is atomic within
 * the process (the only one that sees this store). The store's clock is
 * this process's.
 *
 * @internal
 */
export class MemorySchedules implements ScheduleStore {
  private readonly byId = new Map<string, StoredSchedule>();

  async scheduleClock(): Promise<number> {
    return Date.now();
  }

  async putSchedule(entry: ScheduleEntry): Promise<void> {
    const lastTick = this.byId.get(entry.id)?.lastTick ?? null;
    this.byId.set(entry.id, { ...entry, lastTick });
  }

  async removeSchedule(id: string): Promise<boolean> {
    return this.byId.delete(id);
  }

  async getSchedule(id: string): Promise<StoredSchedule | null> {
    return this.byId.get(id) ?? null;
  }

  async listSchedules(): Promise<StoredSchedule[]> {
    return [...this.byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async dueSchedules(max: number): Promise<{ nowMs: number; due: StoredSchedule[] }> {
    const nowMs = Date.now();
    const due = [...this.byId.values()]
      .filter((entry) => entry.nextTickMs !== null && entry.nextTickMs <= nowMs)
      .sort((a, b) => (a.nextTickMs as number) - (b.nextTickMs as number))
      .slice(0, max);
    return { nowMs, due };
  }

  async advanceSchedule(
    id: string,
    fromMs: number,
    toMs: number,
    lastTick: ScheduleLastTick | null,
  ): Promise<boolean> {
    const entry = this.byId.get(id);
    if (!entry || entry.nextTickMs !== fromMs || toMs <= fromMs) return false;
    this.byId.set(id, { ...entry, nextTickMs: toMs, lastTick: lastTick ?? entry.lastTick });
    return true;
  }
}
