import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { CancelArgs, CancelKeys, CancelReply } from './redis-script-types';
import type { RedisClient } from './redis-scripts';

/**
 * Typed calls of the scripts that control work already stored (cancel-5.lua,
 * resumeQueue-3.lua), beside RedisScripts and registered the same way
 * (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisControlScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /** Cancels one task if it is still as the caller read it (see cancel-5.lua). */
  async cancel(keys: CancelKeys, args: CancelArgs): Promise<CancelReply> {
    return (await this.calls.cancel([
      keys.queueKey,
      keys.deferredKey,
      keys.runningKey,
      keys.historyKey,
      keys.taskKey,
      args.id,
      args.workersSeen,
      args.outcome,
      args.resultTtlMs,
      args.cancelsPrefix,
    ])) as CancelReply;
  }

  /**
   * Takes a queue out of the paused set and, when it was paused, gives its
   * ready tasks wake-up tokens (at most `wakeBound`); returns how many.
   */
  async resumeQueue(
    keys: { pausedKey: string; queueKey: string; wakeKey: string },
    args: { queue: string; wakeBound: number },
  ): Promise<number> {
    return (await this.calls.resumeQueue([
      keys.pausedKey,
      keys.queueKey,
      keys.wakeKey,
      args.queue,
      args.wakeBound,
    ])) as number;
  }
}
