import type { Logger } from '@nestjs/common';

import type { FinishedTaskTransport, FinishedTasksListener } from '../../core/finished-task-feed';
import type { RedisConnection } from './redis-connection';
import { RedisControlScripts } from './redis-control-scripts';
import { decodeFinishedMessage } from './redis-finished-payload';
import type { RedisClient } from './redis-scripts';

/** How long the listener mark holds unless renewed, and how often a listener renews it. */
const MARK_TTL_MS = 30_000;
const MARK_RENEW_MS = 10_000;

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
 * The storing scripts publish only while the channel's listener mark exists
 * (RedisKeys.finishedListenerMark), so open sets it after subscribing, before
 * it resolves, and renews it while subscribed; a mark lost with a Redis
 * restart is set again within MARK_RENEW_MS.
 *
 * @internal
 */
export class RedisFinishedFeed implements FinishedTaskTransport {
  private subscriber: RedisClient | null = null;
  private deliver: FinishedTasksListener | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private readonly scripts: RedisControlScripts;

  constructor(
    private readonly channel: string,
    private readonly markKey: string,
    private readonly connection: RedisConnection,
    private readonly logger: Logger,
  ) {
    this.scripts = new RedisControlScripts(connection.client);
  }

  async open(deliver: FinishedTasksListener): Promise<void> {
    const subscriber = (this.subscriber ??= this.createSubscriber());
    this.deliver = deliver;
    // SUBSCRIBE replies once the server delivers to us: finishes from then on are seen,
    // and those stored once the mark is set are published.
    await this.connection.run(() => subscriber.subscribe(this.channel));
    await this.mark();
    this.renewal ??= setInterval(() => void this.renew(), MARK_RENEW_MS).unref();
  }

  async close(): Promise<void> {
    this.stopRenewal();
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
    this.stopRenewal();
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

  private mark(): Promise<void> {
    return this.connection.run(() => this.scripts.markListening(this.markKey, MARK_TTL_MS));
  }

  private async renew(): Promise<void> {
    try {
      await this.mark();
    } catch (error) {
      // The next renewal tries again; the mark outlives two missed ones.
      this.logger.warn(
        `Could not renew the listener mark of ${this.channel}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private stopRenewal(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
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
