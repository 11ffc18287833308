import type { Logger } from '@nestjs/common';

import { FinishedTaskFanout } from '../../core/finished-task-feed';
import { LiveTaskFanout } from '../../core/live-task-feed';
import { RedisChannelFeed } from './redis-channel-feed';
import type { RedisConnection } from './redis-connection';
import { decodeFinishedMessage } from './redis-finished-payload';
import type { RedisKeys } from './redis-keys';
import { decodeLiveMessage } from './redis-live-payload';

/**
 * The two feeds of one RedisBackend alias, each a channel with its own
 * listener mark and subscriber connection (opened for its first listener):
 * finished tasks (RedisKeys.finishedChannel) and live task events
 * (RedisKeys.liveChannel). Apart, so a process that only waits for results
 * is not sent every start and progress, and the scripts of an alias whose
 * results are awaited still publish no live event.
 *
 * @internal
 */
export class RedisFeeds {
  readonly finished: FinishedTaskFanout;
  readonly live: LiveTaskFanout;

  constructor(keys: RedisKeys, connection: RedisConnection, logger: Logger) {
    this.finished = new FinishedTaskFanout(
      new RedisChannelFeed(
        {
          channel: keys.finishedChannel,
          markKey: keys.finishedListenerMark,
          decode: decodeFinishedMessage,
          what: 'finished tasks',
        },
        connection,
        logger,
      ),
      logger,
    );
    this.live = new LiveTaskFanout(
      new RedisChannelFeed(
        {
          channel: keys.liveChannel,
          markKey: keys.liveListenerMark,
          decode: decodeLiveMessage,
          what: 'live task events',
        },
        connection,
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
