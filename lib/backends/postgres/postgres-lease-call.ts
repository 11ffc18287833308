import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import type { AcknowledgeOutcome } from '../../core/ports/lease-store.port';
import { finishedProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord, serializeRecord } from '../../core/task-serializer';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresConnection } from './postgres-connection';
import type { PostgresNotices } from './postgres-notices';
import type { PostgresQueueLimits } from './postgres-queue-limits';
import type { PostgresRows } from './postgres-rows';
import type { PostgresTaskStatements, TaskRow } from './postgres-task-statements';

/** A row of threadmill_lease's reply (postgres-lease-function.ts). */
interface LeaseRow {
  kind: 'outcome' | 'leased' | 'wait' | 'fallback';
  n: number | null;
  id: string | null;
  data: string | null;
  progress: string | null;
  wait_ms: number | null;
}

/** What one lease stored and leased. */
export interface LeaseOutcome {
  acknowledged: AcknowledgeOutcome[];
  acquired: TaskRecord[];
  /** When nothing was leased because a rate-limited queue was full: ms until its window admits a start; else 0. */
  waitMs: number;
}

/** What one call stored and leased. */
export interface LeaseCallResult extends LeaseOutcome {
  /** A ready task's data was no JSON Postgres reads: nothing leased, lease in TypeScript. */
  fellBack: boolean;
}

/**
 * The hot path of a PostgresBackend in one round trip: the finished records
 * stored, then a lease taken, by the schema's threadmill_lease function (one
 * statement, so one transaction). A leased task whose record TypeScript
 * cannot read is failed at once (CorruptTaskDataError), as the lease in
 * TypeScript does, and not returned.
 *
 * @internal
 */
export class PostgresLeaseCall {
  private readonly call: string;

  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly connection: PostgresConnection,
    private readonly tasks: PostgresTaskStatements,
    private readonly rows: PostgresRows,
    private readonly queueState: PostgresQueueLimits,
    private readonly notices: PostgresNotices,
  ) {
    const params = Array.from({ length: 20 }, (_, i) => `$${i + 1}`).join(', ');
    this.call = `SELECT * FROM ${settings.schema}.threadmill_lease(${params})`;
  }

  async lease(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | null,
  ): Promise<LeaseCallResult> {
    // The server's time, read without a round trip: the call stays one statement.
    const now = await this.connection.storeNow();
    const reply = await this.connection.query<LeaseRow>(this.call, [
      this.alias,
      queues,
      queues.map((queue) => this.queueState.pauseKey(queue)),
      queues.map((queue) => this.queueState.limitKey(queue)),
      this.connection.feedLockKey,
      workerId,
      max,
      now,
      now + this.settings.leaseTtl,
      poolId,
      finished.map((record) => record.id),
      finished.map(serializeRecord),
      finished.map(finishedProgress),
      finished.map((record) => record.status),
      finished.map((record) => record.task.name),
      // Null: each result is dated by the server's clock (`now`), as retention and windows read it.
      finished.map(() => null),
      now + this.settings.retention.longestMaxAgeMs,
      this.notices.channel('finished'),
      this.notices.channel('live'),
      this.notices.channel('work'),
    ]);
    const result: LeaseCallResult = {
      acknowledged: new Array<AcknowledgeOutcome>(finished.length),
      acquired: [],
      waitMs: 0,
      fellBack: false,
    };
    const unreadable: string[] = [];
    for (const row of reply) {
      if (row.kind === 'outcome') {
        result.acknowledged[(row.n ?? 0) - 1] = row.data as AcknowledgeOutcome;
      } else if (row.kind === 'leased') {
        const record = this.readLeased(row);
        if (record) result.acquired.push(record);
        else unreadable.push(row.id ?? '');
      } else if (row.kind === 'wait') {
        result.waitMs = row.wait_ms ?? 0;
      } else {
        result.fellBack = true;
      }
    }
    if (unreadable.length > 0) await this.failUnreadable(unreadable);
    return result;
  }

  private readLeased(row: LeaseRow): TaskRecord | null {
    try {
      return deserializeRecord(row.id ?? '', row.data ?? '');
    } catch (error) {
      if (error instanceof CorruptTaskDataError) return null;
      throw error;
    }
  }

  /** Leased tasks whose record is not ours to read: failed, so none stalls a consumer. */
  private async failUnreadable(ids: readonly string[]): Promise<void> {
    await this.connection.transaction(async (tx) => {
      const now = await this.connection.storeNow();
      for (const id of ids) {
        const [row] = await tx.query<TaskRow>(this.tasks.selectRunning, [this.alias, id]);
        if (row) await this.rows.read(tx, row, now);
      }
    });
  }
}
