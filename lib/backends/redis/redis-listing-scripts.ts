import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { RedisClient } from './redis-clients';

/** One entry a page returned: its member, score and the task hash fields asked for. */
export interface ListedRaw {
  id: string;
  score: number;
  values: (string | null)[];
}

/** One pool as readPools-2.lua reads it. */
export interface PoolRaw {
  id: string;
  deadlineMs: number;
  /** Its last beat and info as beatPool-2.lua stored them, null when it has none. */
  beat: string | null;
  held: number;
}

/**
 * The typed calls of the operators' read scripts (listSegment-1.lua,
 * readPools-2.lua), registered like the other scripts (defineScriptCalls,
 * once per client).
 *
 * @internal
 */
export class RedisListingScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /** One page of a segment from a cursor (see listSegment-1.lua). */
  async listSegment(
    segmentKey: string,
    args: {
      descending: boolean;
      /** Where the previous page stopped; null from the first entry. */
      after: { score: number; member: string } | null;
      examine: number;
      wanted: number;
      /** Oldest score listed, as an age on Redis's clock (ms); null for no bound. */
      keptMs: number | null;
      taskPrefix: string;
      /** What a returned entry's data starts with; empty for every entry. */
      dataPrefix: string;
      fields: readonly string[];
    },
  ): Promise<{
    ended: boolean;
    last: { member: string; score: number } | null;
    entries: ListedRaw[];
  }> {
    const reply = (await this.calls.listSegment([
      segmentKey,
      args.descending ? -1 : 1,
      args.after === null ? '' : String(args.after.score),
      args.after === null ? '' : args.after.member,
      args.examine,
      args.wanted,
      args.keptMs ?? '',
      args.taskPrefix,
      args.dataPrefix,
      ...args.fields,
    ])) as (string | number | null)[];
    const width = 2 + args.fields.length;
    const entries: ListedRaw[] = [];
    for (let i = 3; i + width <= reply.length; i += width) {
      entries.push({
        id: String(reply[i]),
        score: Number(reply[i + 1]),
        values: reply.slice(i + 2, i + width) as (string | null)[],
      });
    }
    const last = reply[1] === null ? null : { member: String(reply[1]), score: Number(reply[2]) };
    return { ended: reply[0] === 1, last, entries };
  }

  /** Redis's time and every pool's deadline, beat, info and tasks held (see readPools-2.lua). */
  async readPools(
    keys: { poolsKey: string; poolInfoKey: string },
    args: { poolTasksPrefix: string; max: number },
  ): Promise<{ nowMs: number; pools: PoolRaw[] }> {
    const reply = (await this.calls.readPools([
      keys.poolsKey,
      keys.poolInfoKey,
      args.poolTasksPrefix,
      args.max,
    ])) as (string | number | null)[];
    const pools: PoolRaw[] = [];
    for (let i = 1; i + 4 <= reply.length; i += 4) {
      pools.push({
        id: String(reply[i]),
        deadlineMs: Number(reply[i + 1]),
        beat: reply[i + 2] === null ? null : String(reply[i + 2]),
        held: Number(reply[i + 3]),
      });
    }
    return { nowMs: Number(reply[0]), pools };
  }
}
