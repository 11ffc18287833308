import { assertKnownQueue } from '../../core/known-queue';
import type { SqliteConnection } from './sqlite-connection';

/**
 * The paused queues of a SqliteBackend alias. One row per paused queue, read
 * by every lease statement, so each process of the file stops at once; a
 * resume counts as work added, so idle consumers here look again at once
 * (those of other processes see the file change).
 *
 * @internal
 */
export class SqlitePausedQueues {
  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
    private readonly connection: SqliteConnection,
    private readonly workAdded: () => void,
  ) {}

  pause(queue: string): void {
    assertKnownQueue(this.alias, this.queues, queue);
    const { queues } = this.connection.sql;
    this.connection.guard(() => queues.insertPaused.run(this.alias, queue));
  }

  resume(queue: string): void {
    assertKnownQueue(this.alias, this.queues, queue);
    const { queues } = this.connection.sql;
    const { changes } = this.connection.guard(() => queues.deletePaused.run(this.alias, queue));
    if (changes > 0) this.workAdded();
  }

  list(): string[] {
    const { queues } = this.connection.sql;
    return this.connection.guard(() => queues.selectPaused.all(this.alias));
  }
}
