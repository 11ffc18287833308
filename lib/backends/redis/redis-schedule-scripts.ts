import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { ScheduleKeys, ScheduleRaw } from './redis-script-types';
import type { RedisClient } from './redis-clients';

/**
 * Typed calls of the schedule scripts (`*Schedule*.lua`), beside RedisScripts
 * and registered the same way (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisScheduleScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /** Adds or replaces one schedule's entry and cursor (none while paused). */
  async putSchedule(
    keys: ScheduleKeys,
    args: { id: string; entryJson: string; nextTickMs: number | null },
  ): Promise<void> {
    await this.calls.putSchedule([
      keys.cursorsKey,
      keys.entriesKey,
      args.id,
      args.entryJson,
      args.nextTickMs ?? '',
    ]);
  }

  /** Removes one schedule, its cursor and last tick; whether it was stored. */
  async removeSchedule(keys: ScheduleKeys, id: string): Promise<boolean> {
    const reply = await this.calls.removeSchedule([
      keys.cursorsKey,
      keys.entriesKey,
      keys.lastTicksKey,
      id,
    ]);
    return reply === 1;
  }

  /** One schedule (`id`) or every one (null) as stored. */
  async readSchedules(keys: ScheduleKeys, id: string | null): Promise<ScheduleRaw[]> {
    const reply = (await this.calls.readSchedules([
      keys.cursorsKey,
      keys.entriesKey,
      keys.lastTicksKey,
      id ?? '',
    ])) as (string | null)[];
    const raws: ScheduleRaw[] = [];
    for (let i = 0; i < reply.length; i += 4) {
      raws.push({
        id: reply[i] as string,
        entryJson: reply[i + 1],
        cursor: reply[i + 2],
        lastTickJson: reply[i + 3],
      });
    }
    return raws;
  }

  /** Redis's time and at most `max` schedules due by it, earliest first. */
  async dueSchedules(
    keys: ScheduleKeys,
    max: number,
  ): Promise<{ nowMs: number; due: ScheduleRaw[] }> {
    const reply = (await this.calls.dueSchedules([
      keys.cursorsKey,
      keys.entriesKey,
      keys.lastTicksKey,
      max,
    ])) as (string | number | null)[];
    const due: ScheduleRaw[] = [];
    for (let i = 1; i < reply.length; i += 4) {
      due.push({
        id: reply[i] as string,
        cursor: reply[i + 1] as string,
        entryJson: reply[i + 2] as string | null,
        lastTickJson: reply[i + 3] as string | null,
      });
    }
    return { nowMs: Number(reply[0]), due };
  }

  /** Moves a schedule's cursor from `fromMs` to `toMs` only while it is `fromMs`; whether it moved. */
  async advanceSchedule(
    keys: ScheduleKeys,
    args: { id: string; fromMs: number; toMs: number; lastTickJson: string | null },
  ): Promise<boolean> {
    const reply = await this.calls.advanceSchedule([
      keys.cursorsKey,
      keys.lastTicksKey,
      args.id,
      args.fromMs,
      args.toMs,
      args.lastTickJson ?? '',
    ]);
    return reply === 1;
  }
}
