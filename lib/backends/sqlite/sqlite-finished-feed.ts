import type { Logger } from '@nestjs/common';
import type {
  FinishedTask,
  FinishedTaskTransport,
  FinishedTasksListener,
} from '../../core/finished-task-feed';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import type { SqliteConnection } from './sqlite-connection';
import { SqliteFeedStatements } from './sqlite-feed-statements';

/** Period of the cursor's reads while someone listens: one indexed range read each. */
export const SQLITE_FEED_INTERVAL_MS = 50;
/** Most rows one read hands over; a longer backlog drains on the next reads. */
const ROWS_PER_READ = 500;

/**
 * The SQLite backend's carrier of finished tasks: a cursor over the results
 * table's rowid, read every SQLITE_FEED_INTERVAL_MS while a listener is
 * subscribed (a file has no push between processes). It starts at the
 * newest result when opened, so only finishes from then on are delivered.
 *
 * @internal
 */
export class SqliteFinishedFeed implements FinishedTaskTransport {
  private statements: SqliteFeedStatements | null = null;
  private timer: NodeJS.Timeout | null = null;
  private cursor = 0;
  /** The id at the cursor, so a reused rowid (its row removed, another inserted) still counts. */
  private cursorId: string | null = null;

  constructor(
    private readonly alias: string,
    private readonly connection: SqliteConnection,
    private readonly logger: Logger,
  ) {}

  async open(deliver: FinishedTasksListener): Promise<void> {
    const statements = (this.statements ??= this.connection.guard(
      () => new SqliteFeedStatements(this.connection.db),
    ));
    const newest = this.connection.guard(() => statements.newest.get());
    this.cursor = newest?.at ?? 0;
    this.cursorId = newest?.id ?? null;
    const read = (): void => {
      try {
        deliver(this.readSince(statements));
      } catch (error) {
        // A busy or failing file is read again next time: the cursor did not move.
        this.logger.warn(`Reading finished tasks failed: ${String(error)}`);
      }
    };
    this.timer = setInterval(read, SQLITE_FEED_INTERVAL_MS);
    // A listener alone must not keep the process alive.
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private readSince(statements: SqliteFeedStatements): FinishedTask[] {
    const rows = this.connection.guard(() =>
      statements.since.all(this.cursor, this.alias, ROWS_PER_READ),
    );
    const tasks: FinishedTask[] = [];
    for (const row of rows) {
      if (row.at === this.cursor && row.id === this.cursorId) continue;
      this.cursor = row.at;
      this.cursorId = row.id;
      tasks.push({
        id: row.id,
        name: row.name ?? '',
        queue: row.queue,
        status: row.status as TaskResultStatus,
      });
    }
    return tasks;
  }
}
