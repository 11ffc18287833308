import { assertDistinctIds } from '../distinct-ids';
import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { serializeRecord } from '../../core/task-serializer';
import type { TaskRecord } from '../../core/task-record.interface';
import type { TaskTransaction } from '../../core/task-transaction';
import type { OutboxDatabase } from './outbox-database';
import { outboxIdTaken } from './outbox.messages';
import type { OutboxStatements } from './outbox-statements';

/**
 * Writes an enqueue's records into the outbox, in the app's open
 * transaction, one statement: each row carries the record the Redis
 * backend would have been given (the same enqueue request), under the id
 * the caller gets back at once, and the relay is notified at the commit.
 *
 * @internal
 */
export class OutboxWriter {
  constructor(
    private readonly database: OutboxDatabase,
    private readonly statements: OutboxStatements,
  ) {}

  /**
   * The records, as written; all or none. A taken id undoes this call's rows
   * only, so the app's transaction stays usable. A unique key is written
   * with its record and decided when the relay moves it.
   *
   * @throws InvalidTaskError when an id is in the outbox already.
   */
  async write(transaction: TaskTransaction, records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    const { alias } = this.database;
    if (records.length === 0) return [];
    assertDistinctIds(records);
    // The table exists before the app's transaction first writes to it.
    await this.database.ready();
    const ids = records.map((record) => record.id);
    const rows = await transaction.query(this.statements.write, [
      alias,
      ids,
      records.map(serializeRecord),
      this.database.channel,
    ]);
    const written = (rows[0]?.ids ?? []) as string[];
    if (written.length < ids.length) {
      await transaction.query(this.statements.delete, [alias, written]);
      const kept = new Set(written);
      throw new InvalidTaskError(
        outboxIdTaken(
          alias,
          ids.filter((id) => !kept.has(id)),
        ),
      );
    }
    return [...records];
  }
}
