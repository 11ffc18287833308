import type { Logger } from '@nestjs/common';

import type { TaskFeedTransport } from '../../core/task-feed-fanout';
import type { RedisConnection } from './redis-connection';
import { RedisControlScripts } from './redis-control-scripts';
import type { RedisClient } from './redis-clients';

/** How long the listener mark holds unless renewed, and how often a listener renews it. */
const MARK_TTL_MS = 30_000;
const MARK_RENEW_MS = 10_000;

/** One feed's channel on Redis: its name, its listener mark, and how to read its messages. */
export interface RedisFeedChannel<T> {
  /** Pub/sub channel the scripts publish on. */
  channel: string;
  /** STRING whose presence makes the scripts publish (the channel's own name). */
  markKey: string;
  /** The items of one message; null when it is not our shape (then ignored). */
  decode: (message: string) => T[] | null;
  /** What the channel carries, for log lines (e.g. 'finished tasks'). */
  what: string;
}

/**
 * The Redis backend's carrier of one feed (finished tasks on
 * RedisKeys.finishedChannel, live events on RedisKeys.liveChannel): a
 * subscription to the alias's channel, on a connection of
 * its own made when the first listener subscribes. When the last one leaves
 * the channel is unsubscribed but the connection kept, so a process that
 * waits for one result after another does not connect each time; it ends
 * with the backend. Pub/sub keeps nothing: a message published while this
 * client is not subscribed (before open, during a reconnect) is not
 * delivered, which is why waiting reads the result after subscribing.
 *
 * The scripts publish only while the channel's listener mark exists
 * (RedisKeys.finishedListenerMark, RedisKeys.liveListenerMark), so open sets it after subscribing, before
 * it resolves, and renews it while subscribed; a mark lost with a Redis
 * restart is set again within MARK_RENEW_MS.
 *
 * @internal
 */
export class RedisChannelFeed<T> implements TaskFeedTransport<T> {
  private subscriber: RedisClient | null = null;
  private deliver: ((items: readonly T[]) => void) | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private readonly scripts: RedisControlScripts;

  private readonly channel: string;

  constructor(
    private readonly feed: RedisFeedChannel<T>,
    private readonly connection: RedisConnection,
    private readonly logger: Logger,
  ) {
    this.channel = feed.channel;
    this.scripts = new RedisControlScripts(connection.client);
  }

  async open(deliver: (items: readonly T[]) => void): Promise<void> {
    const subscriber = (this.subscriber ??= this.createSubscriber());
    this.deliver = deliver;
    // SUBSCRIBE replies once the server delivers to us: messages from then on are seen,
    // and the scripts publish once the mark is set.
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
    return this.connection.run(() => this.scripts.markListening(this.feed.markKey, MARK_TTL_MS));
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
      const items = this.feed.decode(message);
      if (items) this.deliver(items);
      else
        this.logger.warn(`Ignored a message on ${channel} that is not a list of ${this.feed.what}`);
    });
    return subscriber;
  }
}
