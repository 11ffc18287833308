import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { FinishedTaskKeys, RetryFinishedArgs } from './redis-script-types';
import type { RedisClient } from './redis-clients';

/**
 * Typed calls of the scripts that retry or remove a final task by hand
 * (`*Finished-N.lua`), beside RedisScripts and registered the same way
 * (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisFinishedScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /** Sends the task back READY while its outcome is `args.outcomeSeen`; whether it did. */
  async retryFinished(
    keys: FinishedTaskKeys & { queueKey: string; wakeKey: string; uniqueKeysKey: string },
    args: RetryFinishedArgs,
  ): Promise<boolean> {
    const reply = await this.calls.retryFinished([
      keys.taskKey,
      keys.historyKey,
      keys.queueKey,
      keys.wakeKey,
      keys.uniqueKeysKey,
      args.id,
      args.outcomeSeen,
      args.readyStatus,
      args.data,
      args.workersJson,
      args.fallbackScore,
      args.wakeBound,
      args.uniqueKey ?? '',
      args.taskPrefix,
      args.windowPrefix,
    ]);
    return reply === 1;
  }

  /** Deletes the task while its outcome is `args.outcomeSeen`; whether it did. */
  async removeFinished(
    keys: FinishedTaskKeys & { uniqueKeysKey: string },
    args: { id: string; outcomeSeen: string; uniqueKey: string | null },
  ): Promise<boolean> {
    const reply = await this.calls.removeFinished([
      keys.taskKey,
      keys.historyKey,
      keys.uniqueKeysKey,
      args.id,
      args.outcomeSeen,
      args.uniqueKey ?? '',
    ]);
    return reply === 1;
  }
}
