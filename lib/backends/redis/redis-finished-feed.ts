import type { Logger } from '@nestjs/common';

import type { FinishedTaskTransport, FinishedTasksListener } from '../../core/finished-task-feed';
import type { RedisConnection } from './redis-connection';
import { decodeFinishedMessage } from './redis-finished-payload';
import type { RedisClient } from './redis-scripts';

/**
 * The Redis backend's carrier of finished tasks: a subscription to the
 * alias's finished channel (RedisKeys.finishedChannel), on a connection of
 * its own made when the first listener subscribes. Pub/sub keeps nothing:
 * a message published while this client is not subscribed (before open,
 * during a reconnect) is not delivered, which is why waiting reads the
 * result after subscribing.
 *
 * @internal
 */
export class RedisFinishedFeed implements FinishedTaskTransport {
  private subscriber: RedisClient | null = null;

  constructor(
    private readonly channel: string,
    private readonly connection: RedisConnection,
    private readonly logger: Logger,
  ) {}

  async open(deliver: FinishedTasksListener): Promise<void> {
    const subscriber = this.connection.createSubscriber();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const tasks = decodeFinishedMessage(message);
      if (tasks) deliver(tasks);
      else
        this.logger.warn(
          `Ignored a message on ${this.channel} that is not a list of finished tasks`,
        );
    });
    try {
      // SUBSCRIBE replies once the server delivers to us: finishes from then on are seen.
      await this.connection.run(() => subscriber.subscribe(this.channel));
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    this.subscriber = subscriber;
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (!subscriber) return;
    try {
      await subscriber.quit();
    } catch {
      subscriber.disconnect();
    }
  }
}
