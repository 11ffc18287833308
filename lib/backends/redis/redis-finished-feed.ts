import type { Logger } from '@nestjs/common';

import type { FinishedTaskTransport, FinishedTasksListener } from '../../core/finished-task-feed';
import type { RedisConnection } from './redis-connection';
import { decodeFinishedMessage } from './redis-finished-payload';
import type { RedisClient } from './redis-scripts';

/**
 * The Redis backend's carrier of finished tasks: a subscription to the
 * alias's finished channel (RedisKeys.finishedChannel), on a connection of
 * its own made when the first listener subscribes. When the last one leaves
 * the channel is unsubscribed but the connection kept, so a process that
 * waits for one result after another does not connect each time; it ends
 * with the backend. Pub/sub keeps nothing: a message published while this
 * client is not subscribed (before open, during a reconnect) is not
 * delivered, which is why waiting reads the result after subscribing.
 *
 * @internal
 */
export class RedisFinishedFeed implements FinishedTaskTransport {
  private subscriber: RedisClient | null = null;
  private deliver: FinishedTasksListener | null = null;

  constructor(
    private readonly channel: string,
    private readonly connection: RedisConnection,
    private readonly logger: Logger,
  ) {}

  async open(deliver: FinishedTasksListener): Promise<void> {
    const subscriber = (this.subscriber ??= this.createSubscriber());
    this.deliver = deliver;
    // SUBSCRIBE replies once the server delivers to us: finishes from then on are seen.
    await this.connection.run(() => subscriber.subscribe(this.channel));
  }

  async close(): Promise<void> {
    this.deliver = null;
    const subscriber = this.subscriber;
    if (!subscriber) return;
    try {
      await subscriber.unsubscribe(this.channel);
    } catch {
      // A connection that failed is made again by the next open.
      this.subscriber = null;
      subscriber.disconnect();
    }
  }

  async end(): Promise<void> {
    this.deliver = null;
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (!subscriber) return;
    try {
      await subscriber.quit();
    } catch {
      subscriber.disconnect();
    }
  }

  private createSubscriber(): RedisClient {
    const subscriber = this.connection.createSubscriber();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel || !this.deliver) return;
      const tasks = decodeFinishedMessage(message);
      if (tasks) this.deliver(tasks);
      else this.logger.warn(`Ignored a message on ${channel} that is not a list of finished tasks`);
    });
    return subscriber;
  }
}
