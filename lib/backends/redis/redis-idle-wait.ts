import type { TaskRecord } from '../../core/task-record.interface';
import { leasesLeftToReaper } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import type { RedisLeaseTaker, TakeCall } from './redis-lease-taker';
import type { RedisReleaser } from './redis-releaser';
import type { AcquireQueueKeys } from './redis-script-types';

/**
 * The idle wait of an acquire of one RedisBackend alias: a blocking wait for
 * a wake-up token with the lease sent right behind it, so a task readied
 * during the wait costs no extra round trip. An aborted wait gives back what
 * it leased and passes on the token it may have swallowed.
 *
 * @internal
 */
export class RedisIdleWait {
  constructor(
    private readonly context: RedisAliasContext,
    private readonly taker: RedisLeaseTaker,
    private readonly releaser: RedisReleaser,
  ) {}

  /**
   * Waits for a wake-up token with a lease sent right behind the wait (see
   * RedisBlockingWaits.waitForWake), until something is leased, `deadline`
   * passes or `signal` aborts; [] for the last two. Null when a token came
   * but nothing rode behind the wait (a Cluster): the caller leases.
   * 'lapsed' when the lease behind the wait was refused (the caller's pool
   * stopped beating meanwhile): the caller sees to that.
   */
  async waitThenTake(
    queues: readonly string[],
    queueKeys: AcquireQueueKeys[],
    call: TakeCall,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<TaskRecord[] | null | 'lapsed'> {
    const wakeKeys = queueKeys.map((keys) => keys.wakeKey);
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      const wake = await this.context.connection.blockingWaits.waitForWake(
        wakeKeys,
        remaining,
        signal,
        (blocker) => this.taker.take(queues, queueKeys, call, blocker),
      );
      const records = wake.followed?.records ?? null;
      if (wake.outcome === 'aborted') {
        // Leased as the wait was ended: the caller is stopping, so they go back in their place.
        if (records?.length) await this.unleaseAborted(records);
        if (wake.tokenMayBeLost && !this.context.guard.closed) await this.passOnWakeUps(queueKeys);
        return [];
      }
      if (records?.length) return records;
      if (wake.followed?.poolLapsed) return 'lapsed';
      if (wake.outcome === 'token' && wake.followed === undefined) return null;
      // A timed-out slice, or a token whose tasks another consumer took first: wait on.
    }
  }

  /** Unleases tasks leased by a wait that was aborted (they never started); what fails here the reaper frees later. */
  private async unleaseAborted(records: readonly TaskRecord[]): Promise<void> {
    try {
      await this.releaser.unlease(records);
    } catch (error) {
      this.context.logger.warn(leasesLeftToReaper(this.context.alias, records.length, error));
    }
  }

  /**
   * After an aborted wait: the abort may have swallowed a wake-up token meant
   * for work that is ready, so every queue of the wait that has ready tasks
   * gets one token back. Best effort (shutdown path): a failure is logged.
   */
  private async passOnWakeUps(queueKeys: readonly AcquireQueueKeys[]): Promise<void> {
    try {
      const { client } = this.context.connection;
      const sizes = await Promise.all(queueKeys.map((keys) => client.zcard(keys.queueKey)));
      await Promise.all(
        queueKeys.filter((_, q) => sizes[q] > 0).map((keys) => client.lpush(keys.wakeKey, '1')),
      );
    } catch (error) {
      this.context.logger.debug(
        `could not pass wake-ups on after an aborted wait: ${String(error)}`,
      );
    }
  }
}
