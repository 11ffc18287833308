import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { RedisClient } from './redis-clients';

/** One entry of storeProgress.lua: a task's keys, and what to store for which attempt. */
export interface ProgressItem {
  readonly runningKey: string;
  readonly taskKey: string;
  readonly id: string;
  /** How many worker ids the holding attempt's `workers` list has. */
  readonly attempt: number;
  readonly stored: string;
  /** The task's queue and name, for its live event. */
  readonly queue: string;
  readonly name: string;
}

/**
 * The typed call of storeProgress.lua, registered like the other scripts
 * (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisProgressScript {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /**
   * Writes each item's `stored` into its task hash while attempt `attempt`
   * holds the task, in one call (announced on `liveChannel`, RedisKeys.liveChannel,
   * while someone listens); per item whether it did.
   */
  async storeProgress(items: readonly ProgressItem[], liveChannel: string): Promise<boolean[]> {
    const keys: (string | number)[] = [0];
    const argv: (string | number)[] = [liveChannel];
    for (const item of items) {
      keys.push(item.runningKey, item.taskKey);
      argv.push(item.id, item.attempt, item.stored, item.queue, item.name);
    }
    keys[0] = keys.length - 1;
    const reply = (await this.calls.storeProgress(keys.concat(argv))) as number[];
    return reply.map((stored) => stored === 1);
  }
}
