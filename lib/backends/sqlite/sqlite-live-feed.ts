import { randomUUID } from 'node:crypto';

import type { Logger } from '@nestjs/common';
import type {
  LiveTaskEvent,
  LiveTaskEventName,
  LiveTaskTransport,
} from '../../core/live-task-feed';
import type { SqliteConnection } from './sqlite-connection';
import { SQLITE_FEED_INTERVAL_MS } from './sqlite-finished-feed';

/** Most rows one read hands over; a longer backlog drains on the next reads. */
const ROWS_PER_READ = 500;
/** How long a listener row holds unless renewed, and how often a listener renews it. */
const MARK_TTL_MS = 30_000;
const MARK_RENEW_MS = 10_000;

/**
 * The SQLite backend's carrier of live task events: while a listener is
 * subscribed, this process keeps a listener row live (so the writing steps
 * record events, see SqliteLiveEvents) and reads the events table past its
 * cursor every SQLITE_FEED_INTERVAL_MS, at most ROWS_PER_READ a read. It
 * starts at the newest event when opened, so only events from then on are
 * delivered; a listener more than LIVE_EVENTS_KEPT events behind loses the
 * oldest of them. Closing deletes its row, so the writers stop once the
 * last listener of the file leaves (or its row lapses, for a process that
 * stopped without a word).
 *
 * @internal
 */
export class SqliteLiveFeed implements LiveTaskTransport {
  private readonly listener = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private cursor = 0;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly logger: Logger,
  ) {}

  async open(deliver: (events: readonly LiveTaskEvent[]) => void): Promise<void> {
    const { live } = this.connection.sql;
    this.connection.guard(() => {
      live.forgetLapsed.run(this.alias, Date.now());
      this.mark();
      // After the mark: every event recorded from then on is past the cursor.
      this.cursor = live.newest.get()?.seq ?? 0;
    });
    this.timer = setInterval(() => {
      try {
        deliver(this.readSince());
      } catch (error) {
        // A busy or failing file is read again next time: the cursor did not move.
        this.logger.warn(`Reading live task events failed: ${String(error)}`);
      }
    }, SQLITE_FEED_INTERVAL_MS);
    this.renewal = setInterval(() => {
      try {
        this.connection.guard(() => this.mark());
      } catch (error) {
        // The next renewal tries again; the row outlives two missed ones.
        this.logger.warn(`Could not renew the live listener row: ${String(error)}`);
      }
    }, MARK_RENEW_MS);
    // A listener alone must not keep the process alive.
    this.timer.unref();
    this.renewal.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.renewal) clearInterval(this.renewal);
    this.timer = null;
    this.renewal = null;
    if (this.connection.closed) return;
    try {
      this.connection.guard(() => this.connection.sql.live.unmark.run(this.alias, this.listener));
    } catch (error) {
      // The row lapses by itself within MARK_TTL_MS.
      this.logger.warn(`Could not delete the live listener row: ${String(error)}`);
    }
  }

  private mark(): void {
    this.connection.sql.live.mark.run(this.alias, this.listener, Date.now() + MARK_TTL_MS);
  }

  private readSince(): LiveTaskEvent[] {
    const rows = this.connection.guard(() =>
      this.connection.sql.live.since.all(this.alias, this.cursor, ROWS_PER_READ),
    );
    const events: LiveTaskEvent[] = [];
    for (const row of rows) {
      this.cursor = row.seq;
      const { id, queue, name } = row;
      const event = row.event as LiveTaskEventName;
      events.push(
        row.progress === null
          ? { event, id, queue, name }
          : { event, id, queue, name, progress: row.progress },
      );
    }
    return events;
  }
}
