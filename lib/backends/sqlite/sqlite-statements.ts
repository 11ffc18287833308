import type { Database } from 'better-sqlite3';

import { SqliteCancelStatements } from './sqlite-cancel-statements';
import { SqliteFinishedStatements } from './sqlite-finished-statements';
import { SqliteListingStatements } from './sqlite-listing-statements';
import { SqliteLiveStatements } from './sqlite-live-statements';
import { SqliteMaintenanceStatements } from './sqlite-maintenance-statements';
import { SqlitePoolStatements } from './sqlite-pool-statements';
import { SqliteQueueStatements } from './sqlite-queue-statements';
import { SqliteReadStatements } from './sqlite-read-statements';
import { SqliteScheduleStatements } from './sqlite-schedule-statements';
import { SqliteTaskStatements } from './sqlite-task-statements';
import { SqliteUniqueStatements } from './sqlite-unique-statements';

/**
 * Every statement the backend runs, prepared once per connection, grouped by
 * what they act on. SQL is written only in these groups and in
 * sqlite-schema.ts (as `RedisKeys` is the one place of Redis keys).
 *
 * @internal
 */
export class SqliteStatements {
  readonly tasks: SqliteTaskStatements;
  readonly pools: SqlitePoolStatements;
  readonly queues: SqliteQueueStatements;
  readonly maintenance: SqliteMaintenanceStatements;
  readonly reads: SqliteReadStatements;
  readonly cancels: SqliteCancelStatements;
  readonly finished: SqliteFinishedStatements;
  readonly schedules: SqliteScheduleStatements;
  readonly unique: SqliteUniqueStatements;
  readonly live: SqliteLiveStatements;
  readonly listing: SqliteListingStatements;

  constructor(db: Database) {
    this.tasks = new SqliteTaskStatements(db);
    this.pools = new SqlitePoolStatements(db);
    this.queues = new SqliteQueueStatements(db);
    this.maintenance = new SqliteMaintenanceStatements(db);
    this.reads = new SqliteReadStatements(db);
    this.cancels = new SqliteCancelStatements(db);
    this.finished = new SqliteFinishedStatements(db);
    this.schedules = new SqliteScheduleStatements(db);
    this.unique = new SqliteUniqueStatements(db);
    this.live = new SqliteLiveStatements(db);
    this.listing = new SqliteListingStatements(db);
  }
}
