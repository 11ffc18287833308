import type { Logger } from '@nestjs/common';
import { FinishedTaskFanout, type FinishedTask } from '../../core/finished-task-feed';
import { LiveTaskFanout, type LiveTaskEvent } from '../../core/live-task-feed';
import type { PostgresConnection } from './postgres-connection';
import { PostgresFeedTransport } from './postgres-feed-transport';
import type { PostgresListener } from './postgres-listener';

/**
 * The two feeds of one PostgresBackend alias, each listened to only while
 * it has a listener: finished tasks and live task events.
 *
 * @internal
 */
export class PostgresFeeds {
  readonly finished: FinishedTaskFanout;
  readonly live: LiveTaskFanout;

  constructor(
    alias: string,
    channels: { finished: string; live: string },
    connection: PostgresConnection,
    listener: PostgresListener,
    logger: Logger,
  ) {
    this.finished = new FinishedTaskFanout(
      new PostgresFeedTransport<FinishedTask>(
        alias,
        'finished',
        channels.finished,
        connection,
        listener,
        logger,
      ),
      logger,
    );
    this.live = new LiveTaskFanout(
      new PostgresFeedTransport<LiveTaskEvent>(
        alias,
        'live',
        channels.live,
        connection,
        listener,
        logger,
      ),
      logger,
    );
  }

  /** Ends both feeds for good (the backend closes). */
  async close(): Promise<void> {
    await Promise.all([this.finished.close(), this.live.close()]);
  }
}
