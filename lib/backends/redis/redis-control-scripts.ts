import { defineScriptCalls, type RedisScriptName, type ScriptCall } from './redis-script-sources';
import type { CancelArgs, CancelKeys, CancelReply } from './redis-script-types';
import type { RedisClient } from './redis-clients';

/**
 * Typed calls of the scripts that control work already stored (cancel-5.lua,
 * resumeQueue-3.lua, storeQueueLimits-5.lua), claim roles (claimRole-1.lua), mark
 * a feed's channel as listened to (markListening-1.lua) and a maintenance
 * pass as done (markPass-1.lua), beside RedisScripts and registered the same
 * way (defineScriptCalls, once per client).
 *
 * @internal
 */
export class RedisControlScripts {
  private readonly calls: Record<RedisScriptName, ScriptCall>;

  constructor(client: RedisClient) {
    this.calls = defineScriptCalls(client);
  }

  /**
   * Cancels one task if it is still as the caller read it (see cancel-5.lua):
   * what it did, and the pool it asked for a running task ('' otherwise).
   */
  async cancel(keys: CancelKeys, args: CancelArgs): Promise<[CancelReply, string]> {
    const [reply, pool] = (await this.calls.cancel([
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
      args.channel,
      args.message,
      args.lease,
    ])) as [CancelReply, string];
    return [reply, pool];
  }

  /** Whether `holder` holds the role at `roleKey` now, its lease renewed for `ttlMs` (see claimRole-1.lua). */
  async claimRole(roleKey: string, holder: string, ttlMs: number): Promise<boolean> {
    return Number(await this.calls.claimRole([roleKey, holder, ttlMs])) === 1;
  }

  /** Marks a feed's channel (finished or live) as listened to for `ttlMs` (see markListening-1.lua). */
  async markListening(markKey: string, ttlMs: number): Promise<void> {
    await this.calls.markListening([markKey, ttlMs]);
  }

  /** Records a maintenance pass at `atMs`, kept `ttlMs` (see markPass-1.lua). */
  async markPass(heartbeatKey: string, atMs: number, ttlMs: number): Promise<void> {
    await this.calls.markPass([heartbeatKey, atMs, ttlMs]);
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

  /**
   * Stores a queue's limits (`encoded` as encodeLimits writes them; only
   * when it has none stored, for `onlyIfAbsent`), keeps the paused set's
   * ':limits' flag in step, and gives its ready tasks wake-up tokens.
   */
  async storeQueueLimits(
    keys: {
      pausedKey: string;
      limitsKey: string;
      queueKey: string;
      wakeKey: string;
      rateKey: string;
    },
    args: { queue: string; encoded: string; onlyIfAbsent: boolean; wakeBound: number },
  ): Promise<number> {
    return (await this.calls.storeQueueLimits([
      keys.pausedKey,
      keys.limitsKey,
      keys.queueKey,
      keys.wakeKey,
      keys.rateKey,
      args.queue,
      args.encoded,
      args.onlyIfAbsent ? 1 : 0,
      args.wakeBound,
    ])) as number;
  }
}
