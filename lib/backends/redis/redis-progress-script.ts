import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { RedisClient } from './redis-scripts';

/**
 * The typed call of storeProgress-2.lua, registered like the other scripts
 * (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisProgressScript {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /** Writes `stored` into the task hash while attempt `attempt` holds the task (announced while someone listens); whether it did. */
  async storeProgress(
    keys: { runningKey: string; taskKey: string },
    args: {
      id: string;
      attempt: number;
      stored: string;
      /** Where a stored progress is announced (RedisKeys.liveChannel), with the task's queue and name. */
      liveChannel: string;
      queue: string;
      name: string;
    },
  ): Promise<boolean> {
    const reply = await this.calls.storeProgress([
      keys.runningKey,
      keys.taskKey,
      args.id,
      args.attempt,
      args.stored,
      args.liveChannel,
      args.queue,
      args.name,
    ]);
    return reply === 1;
  }
}
