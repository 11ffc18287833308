import { assertKnownQueue } from '../../core/known-queue';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisControlScripts } from './redis-control-scripts';
import { WAKE_BOUND } from './redis-scripts';

/** The paused set's member that says some queue has limits; no queue name has a colon. */
const LIMITS_FLAG = ':limits';

/**
 * The paused queues of one RedisBackend alias: a SET of queue names that
 * acquire.lua reads where it takes a lease. A resume gives the queue's ready
 * tasks wake-up tokens (resumeQueue-3.lua), so consumers blocked on its list
 * take them at once.
 *
 * @internal
 */
export class RedisPausedQueues {
  private readonly scripts: RedisControlScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.scripts = new RedisControlScripts(context.connection.client);
  }

  async pause(queue: string): Promise<void> {
    this.assertKnown(queue);
    const { connection, keys } = this.context;
    await connection.run(() => connection.client.sadd(keys.paused, queue));
  }

  async resume(queue: string): Promise<void> {
    this.assertKnown(queue);
    const { connection, keys } = this.context;
    await connection.run(() =>
      this.scripts.resumeQueue(
        { pausedKey: keys.paused, queueKey: keys.queue(queue), wakeKey: keys.wake(queue) },
        { queue, wakeBound: WAKE_BOUND },
      ),
    );
  }

  async list(): Promise<string[]> {
    const { connection, keys } = this.context;
    const members = await connection.run(() => connection.client.smembers(keys.paused));
    // ':limits' flags that some queue has limits (see acquire.lua); it names no queue.
    return members.filter((member) => member !== LIMITS_FLAG);
  }

  private assertKnown(queue: string): void {
    assertKnownQueue(this.context.alias, this.context.settings.queues, queue);
  }
}
