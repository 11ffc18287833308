import type { Logger } from '@nestjs/common';
import { FinishedTaskFanout } from '../../core/finished-task-feed';
import { LiveTaskFanout } from '../../core/live-task-feed';
import type { SqliteConnection } from './sqlite-connection';
import { SqliteFinishedFeed } from './sqlite-finished-feed';
import { SqliteLiveFeed } from './sqlite-live-feed';

/**
 * The two feeds of one SqliteBackend alias, each read from the file only
 * while it has a listener: finished tasks (a cursor over results) and live
 * task events (a cursor over the events table, which is written only while
 * a listener's row is live).
 *
 * @internal
 */
export class SqliteFeeds {
  readonly finished: FinishedTaskFanout;
  readonly live: LiveTaskFanout;

  constructor(alias: string, connection: SqliteConnection, logger: Logger) {
    this.finished = new FinishedTaskFanout(
      new SqliteFinishedFeed(alias, connection, logger),
      logger,
    );
    this.live = new LiveTaskFanout(new SqliteLiveFeed(alias, connection, logger), logger);
  }

  /** Ends both feeds for good (the backend closes). */
  async close(): Promise<void> {
    await Promise.all([this.finished.close(), this.live.close()]);
  }
}
