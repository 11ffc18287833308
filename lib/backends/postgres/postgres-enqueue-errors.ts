import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult, type TaskRecordSource } from '../../core/task-result';
import { deserializeRecord } from '../../core/task-serializer';
import { enqueueOutcomeUnknown, taskAlreadyExists } from '../../core/threadmill.messages';
import type { PostgresTx } from './postgres-connection';
import type { DataRow, PostgresTaskStatements } from './postgres-task-statements';

/**
 * The errors a Postgres enqueue answers with: an id it brings already
 * taken, checked inside the enqueue's transaction (by a live task, or a
 * result still kept; the refusal carries the stored task, read from the
 * backend's `results`), and an outcome lost with the connection.
 *
 * @internal
 */
export class PostgresEnqueueErrors {
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

  /** The error of an enqueue whose COMMIT went out and whose connection was lost before its reply. */
  outcomeUnknown(records: readonly TaskRecord[], cause: unknown): EnqueueOutcomeUnknownError {
    const ids = records.map((record) => record.id);
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new EnqueueOutcomeUnknownError(enqueueOutcomeUnknown(this.alias, ids, reason), ids, {
      cause,
    });
  }
}
