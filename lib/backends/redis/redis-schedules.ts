import type {
  ScheduleEntry,
  ScheduleLastTick,
  ScheduleOrigin,
  ScheduleStore,
  StoredSchedule,
} from '../../core/ports/schedule-store.port';
import type { RedisCallGuard } from './redis-call-guard';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import type { RedisMaintenance } from './redis-maintenance';
import { RedisScheduleScripts } from './redis-schedule-scripts';
import type { ScheduleKeys, ScheduleRaw } from './redis-script-types';

/** A schedule's entry as its hash field holds it; no `a` in one stored before apps were recorded. */
interface EntryJson {
  d: string;
  o: ScheduleOrigin;
  a?: string;
  p: boolean;
}

/** A last tick as its hash field holds it. */
interface LastTickJson {
  t: number;
  i: string;
}

/**
 * What a RedisBackend alias stores for schedules: each write one Lua script
 * (entries in a HASH, cursors in a ZSET so the due ones are one range, last
 * ticks in a HASH of their own), and the cursor's compare-and-set too. The
 * store's clock is Redis's.
 *
 * @internal
 */
export class RedisSchedules implements ScheduleStore {
  private readonly scripts: RedisScheduleScripts;
  private readonly keys: ScheduleKeys;

  constructor(
    keys: RedisKeys,
    private readonly connection: RedisConnection,
    private readonly maintenance: RedisMaintenance,
    private readonly guard: RedisCallGuard,
  ) {
    this.scripts = new RedisScheduleScripts(connection.client);
    this.keys = {
      cursorsKey: keys.scheduleCursors,
      entriesKey: keys.scheduleEntries,
      lastTicksKey: keys.scheduleLastTicks,
    };
  }

  scheduleClock(): Promise<number> {
    return this.run(() => this.maintenance.storeNow());
  }

  putSchedule(entry: ScheduleEntry): Promise<void> {
    const json: EntryJson = {
      d: entry.definition,
      o: entry.origin,
      ...(entry.app === null ? {} : { a: entry.app }),
      p: entry.paused,
    };
    return this.run(() =>
      this.scripts.putSchedule(this.keys, {
        id: entry.id,
        entryJson: JSON.stringify(json),
        nextTickMs: entry.nextTickMs,
      }),
    );
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.run(() => this.scripts.removeSchedule(this.keys, id));
  }

  async getSchedule(id: string): Promise<StoredSchedule | null> {
    const [raw] = await this.run(() => this.scripts.readSchedules(this.keys, id));
    return raw ? fromRaw(raw) : null;
  }

  async listSchedules(): Promise<StoredSchedule[]> {
    const raws = await this.run(() => this.scripts.readSchedules(this.keys, null));
    return raws
      .map(fromRaw)
      .filter((entry): entry is StoredSchedule => entry !== null)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async dueSchedules(max: number): Promise<{ nowMs: number; due: StoredSchedule[] }> {
    const { nowMs, due } = await this.run(() => this.scripts.dueSchedules(this.keys, max));
    return {
      nowMs,
      due: due.map(fromRaw).filter((entry): entry is StoredSchedule => entry !== null),
    };
  }

  advanceSchedule(
    id: string,
    fromMs: number,
    toMs: number,
    lastTick: ScheduleLastTick | null,
  ): Promise<boolean> {
    const json: LastTickJson | null = lastTick && { t: lastTick.tickMs, i: lastTick.taskId };
    return this.run(() =>
      this.scripts.advanceSchedule(this.keys, {
        id,
        fromMs,
        toMs,
        lastTickJson: json && JSON.stringify(json),
      }),
    );
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    this.guard.assertOpen();
    return this.connection.run(call);
  }
}

/** A stored schedule; null for an entry that is gone (removed between two reads) or not ours. */
function fromRaw(raw: ScheduleRaw): StoredSchedule | null {
  if (raw.entryJson === null) return null;
  let entry: EntryJson;
  let last: LastTickJson | null;
  try {
    entry = JSON.parse(raw.entryJson) as EntryJson;
    last = raw.lastTickJson === null ? null : (JSON.parse(raw.lastTickJson) as LastTickJson);
  } catch {
    // Not written by this store: the definition is left unreadable for the caller to report.
    return {
      id: raw.id,
      definition: '',
      origin: 'runtime',
      app: null,
      paused: true,
      nextTickMs: null,
      lastTick: null,
    };
  }
  return {
    id: raw.id,
    definition: entry.d,
    origin: entry.o,
    app: typeof entry.a === 'string' ? entry.a : null,
    paused: entry.p,
    nextTickMs: raw.cursor === null ? null : Number(raw.cursor),
    lastTick: last === null ? null : { tickMs: last.t, taskId: last.i },
  };
}
