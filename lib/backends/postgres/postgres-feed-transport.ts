import { randomUUID } from 'node:crypto';

import type { Logger } from '@nestjs/common';
import type { TaskFeedTransport } from '../../core/task-feed-fanout';
import type { FeedName, PostgresConnection } from './postgres-connection';
import type { PostgresListener } from './postgres-listener';

/** How long a listener row holds unless renewed, and how often a listening process renews it. */
const MARK_TTL_MS = 30_000;
const MARK_RENEW_MS = 10_000;

/**
 * One feed of one alias carried by LISTEN/NOTIFY: while it is open, this
 * process LISTENs on the feed's channel and keeps a listener row live, so
 * the writing steps notify it (PostgresConnection sends a feed's
 * notifications only while such a row is live). The row is written under
 * the feed lock every writing transaction shares, so once `open` resolves
 * every transaction that commits afterwards has seen it. Nothing is
 * replayed; a row of a process that stopped without a word lapses.
 *
 * @internal
 */
export class PostgresFeedTransport<T> implements TaskFeedTransport<T> {
  private readonly listenerId = randomUUID();
  private renewal: NodeJS.Timeout | null = null;
  private readonly sql: Record<'mark' | 'unmark' | 'forgetLapsed', string>;

  constructor(
    private readonly alias: string,
    private readonly feed: FeedName,
    private readonly channel: string,
    private readonly connection: PostgresConnection,
    private readonly listener: PostgresListener,
    private readonly logger: Logger,
  ) {
    const s = connection.schema;
    this.sql = {
      mark: `
        INSERT INTO ${s}.threadmill_feed_listeners (alias, feed, listener, expires_at)
        VALUES ($1, $2, $3, $4)
        ON CONFLICT (alias, feed, listener) DO UPDATE SET expires_at = excluded.expires_at`,
      unmark: `
        DELETE FROM ${s}.threadmill_feed_listeners
        WHERE alias = $1 AND feed = $2 AND listener = $3`,
      forgetLapsed: `
        DELETE FROM ${s}.threadmill_feed_listeners
        WHERE alias = $1 AND feed = $2 AND expires_at <= $3`,
    };
  }

  async open(deliver: (items: readonly T[]) => void): Promise<void> {
    await this.listener.listen(this.channel, (payload) => {
      try {
        deliver(JSON.parse(payload) as T[]);
      } catch (error) {
        this.logger.warn(
          `A ${this.feed} notification of "${this.alias}" was unreadable: ${String(error)}`,
        );
      }
    });
    try {
      await this.connection.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.connection.feedLockKey]);
        const now = this.connection.clock.now();
        await tx.query(this.sql.forgetLapsed, [this.alias, this.feed, now]);
        await tx.query(this.sql.mark, [this.alias, this.feed, this.listenerId, now + MARK_TTL_MS]);
      }, false);
    } catch (error) {
      // Not listening after all: the channel goes with the failed open.
      await this.listener.unlisten(this.channel).catch((unlistenError: unknown) => {
        this.logger.warn(`Could not stop listening on ${this.channel}: ${String(unlistenError)}`);
      });
      throw error;
    }
    this.renewal = setInterval(() => {
      // The clock was measured before the open's transaction: it reads without a round trip.
      const until = this.connection.clock.now() + MARK_TTL_MS;
      this.connection
        .query(this.sql.mark, [this.alias, this.feed, this.listenerId, until])
        .catch((error: unknown) => {
          // The next renewal tries again; the row outlives two missed ones.
          this.logger.warn(`Could not renew the ${this.feed} listener row: ${String(error)}`);
        });
    }, MARK_RENEW_MS);
    // A listener alone must not keep the process alive.
    this.renewal.unref();
  }

  async close(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    if (this.connection.closed) return;
    try {
      await this.listener.unlisten(this.channel);
      await this.connection.query(this.sql.unmark, [this.alias, this.feed, this.listenerId]);
    } catch (error) {
      // The row lapses by itself within MARK_TTL_MS.
      this.logger.warn(
        `Could not stop the ${this.feed} listener of "${this.alias}": ${String(error)}`,
      );
    }
  }
}
