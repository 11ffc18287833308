import { Logger } from '@nestjs/common';
import { FinishedTaskFanout } from '../../core/finished-task-feed';
import { LiveTaskFanout } from '../../core/live-task-feed';
import { MemoryFinishedFeed } from './memory-finished-feed';
import { MemoryLiveFeed } from './memory-live-feed';

/**
 * The two feeds of one MemoryBackend alias, in process: finished tasks and
 * live task events. The store tells `finishedTransport` and `liveTransport`
 * of each change; they build nothing while nobody listens.
 *
 * @internal
 */
export class MemoryFeeds {
  readonly finishedTransport = new MemoryFinishedFeed();
  readonly liveTransport = new MemoryLiveFeed();
  readonly finished: FinishedTaskFanout;
  readonly live: LiveTaskFanout;

  constructor(alias: string) {
    const logger = new Logger(`MemoryBackend:${alias}`);
    this.finished = new FinishedTaskFanout(this.finishedTransport, logger);
    this.live = new LiveTaskFanout(this.liveTransport, logger);
  }

  /** Ends both feeds for good (the backend closes). */
  async close(): Promise<void> {
    await Promise.all([this.finished.close(), this.live.close()]);
  }
}
