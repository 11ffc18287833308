import { assertKnownQueue } from '../../core/known-queue';
import { decodeLimits, encodeLimits, type QueueLimits } from '../../core/queue-limits';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisControlScripts } from './redis-control-scripts';
import { WAKE_BOUND } from './redis-scripts';

/**
 * The queue limits of one RedisBackend alias: a HASH acquire.lua reads where
 * it takes a lease (only while the paused set flags that some queue has
 * limits). The configured limits are seeded before this instance's first
 * lease or read, each only where the store has none, so a change made at run
 * time wins over the configuration for every pool and every restart.
 *
 * @internal
 */
export class RedisQueueLimits {
  private seeding: Promise<void> | null = null;
  private seeded: boolean;
  private readonly scripts: RedisControlScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.scripts = new RedisControlScripts(context.connection.client);
    this.seeded = Object.keys(context.settings.limits).length === 0;
  }

  /** Resolves once the configured limits are stored where the store had none; at once after. */
  ready(): Promise<void> | undefined {
    if (this.seeded) return undefined;
    this.seeding ??= this.seed().then(
      () => {
        this.seeded = true;
      },
      (error: unknown) => {
        // Tried again by the next call: a Redis down at start must not leave the limits unseeded.
        this.seeding = null;
        throw error;
      },
    );
    return this.seeding;
  }

  async set(queue: string, limits: QueueLimits | null): Promise<void> {
    assertKnownQueue(this.context.alias, this.context.settings.queues, queue);
    await this.ready();
    await this.store(queue, encodeLimits(limits), false);
  }

  async all(): Promise<Record<string, QueueLimits>> {
    await this.ready();
    const { connection, keys } = this.context;
    const stored = await connection.run(() => connection.client.hgetall(keys.limits));
    const all: Record<string, QueueLimits> = {};
    for (const [queue, text] of Object.entries(stored)) {
      const limits = decodeLimits(text);
      if (limits && this.context.settings.queues.includes(queue)) all[queue] = limits;
    }
    return all;
  }

  private async seed(): Promise<void> {
    for (const [queue, limits] of Object.entries(this.context.settings.limits)) {
      await this.store(queue, encodeLimits(limits), true);
    }
  }

  private async store(queue: string, encoded: string, onlyIfAbsent: boolean): Promise<void> {
    const { connection, keys } = this.context;
    await connection.run(() =>
      this.scripts.storeQueueLimits(
        {
          pausedKey: keys.paused,
          limitsKey: keys.limits,
          queueKey: keys.queue(queue),
          wakeKey: keys.wake(queue),
          rateKey: keys.rate(queue),
        },
        { queue, encoded, onlyIfAbsent, wakeBound: WAKE_BOUND },
      ),
    );
  }
}
