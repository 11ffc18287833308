import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { TaskResult, type TaskRecordSource } from '../../core/task-result';
import { deserializeRecord } from '../../core/task-serializer';
import { taskAlreadyExists } from '../../core/threadmill.messages';
import type { PostgresTx } from './postgres-connection';
import type { DataRow, PostgresTaskStatements } from './postgres-task-statements';

/**
 * Whether an id an enqueue brings is taken, inside the enqueue's
 * transaction: by a live task, or by a result still kept. A refusal
 * carries the stored task, read from the backend (`results`).
 *
 * @internal
 */
export class PostgresTakenIds {
  constructor(
    private readonly alias: string,
    private readonly sql: PostgresTaskStatements,
    private readonly results: TaskRecordSource,
  ) {}

  /** Throws TaskAlreadyExistsError when `id` is live or a result still kept. */
  async assertFree(tx: PostgresTx, id: string, now: number): Promise<void> {
    const refusal = await this.refusalOf(tx, id, now);
    if (refusal) throw refusal;
  }

  async refusalOf(tx: PostgresTx, id: string, now: number): Promise<TaskAlreadyExistsError | null> {
    const [live] = await tx.query<DataRow>(this.sql.selectTask, [this.alias, id]);
    const [stored] = live
      ? [live]
      : await tx.query<DataRow>(this.sql.selectResult, [this.alias, id, now]);
    return stored ? this.alreadyExists(stored) : null;
  }

  alreadyExists(row: DataRow): TaskAlreadyExistsError {
    const existing = deserializeRecord(row.id, row.data);
    return new TaskAlreadyExistsError(
      taskAlreadyExists(row.id, this.alias, existing.status),
      new TaskResult(existing, this.results),
    );
  }
}
