import type { Logger } from '@nestjs/common';
import type { BackendTelemetry } from '../../core/backend-telemetry.interface';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { isFinishedSegment, type QueueSegment } from '../../core/queue-segment';
import { recordWithProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord } from '../../core/task-serializer';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { PostgresBackendSettings } from './postgres-backend-options';
import type { PostgresConnection } from './postgres-connection';
import type { PostgresReadStatements } from './postgres-read-statements';
import { META_MAINTENANCE_HEARTBEAT } from './postgres-schema';
import type { DataRow } from './postgres-task-statements';

/** One count of a queue: tasks in a state, results of a status, or its ingress. */
interface CountRow {
  queue: string;
  /** A task state, a final status, or `ingress`. */
  what: string;
  count: number;
  /** Results finished within the telemetry window. */
  in_window: number;
}

/**
 * What callers and operators read of a PostgresBackend: a segment's tasks,
 * counts and rates, one task's result, the maintenance heartbeat. Each is
 * one statement (one snapshot), taking no lock.
 *
 * @internal
 */
export class PostgresReads {
  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly connection: PostgresConnection,
    private readonly sql: PostgresReadStatements,
    private readonly logger: Logger,
  ) {}

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    const now = await this.connection.storeNow();
    const rows = isFinishedSegment(segment)
      ? await this.connection.query<DataRow>(this.sql.peekResults, [
          this.alias,
          queue,
          segment.toUpperCase(),
          now - this.settings.retention.longestMaxAgeMs,
          now,
          count,
        ])
      : await this.connection.query<DataRow>(this.sql.peekTasks[segment], [
          this.alias,
          queue,
          count,
        ]);
    const records: TaskRecord[] = [];
    for (const row of rows) {
      try {
        records.push(recordWithProgress(deserializeRecord(row.id, row.data), row.progress));
      } catch (error) {
        // Peek only reads: the consumer that acquires this task fails it properly.
        this.logger.warn(`peek skipped task ${row.id} of "${this.alias}": ${String(error)}`);
      }
    }
    return records;
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    const now = await this.connection.storeNow();
    const rows = await this.connection.query<CountRow>(this.sql.counts, [
      this.alias,
      now - this.settings.retention.longestMaxAgeMs,
      now,
      now - intervalMs,
    ]);
    const telemetry: BackendTelemetry = { queues: {} };
    for (const queue of this.settings.queues) {
      const of = (what: string) => rows.find((row) => row.queue === queue && row.what === what);
      const count = (what: string) => of(what)?.count ?? 0;
      const inWindow = (what: string) => of(what)?.in_window ?? 0;
      telemetry.queues[queue] = {
        counts: {
          ready: count('ready'),
          running: count('running'),
          deferred: count('deferred'),
          successful: count('SUCCESSFUL'),
          failed: count('FAILED'),
          cancelled: count('CANCELLED'),
        },
        rates: {
          intervalMs,
          ingress: count('ingress'),
          egress: inWindow('SUCCESSFUL') + inWindow('FAILED') + inWindow('CANCELLED'),
          failed: inWindow('FAILED'),
        },
      };
    }
    return telemetry;
  }

  async getResult(id: string): Promise<TaskRecord> {
    const [row] = await this.connection.query<DataRow>(this.sql.selectTaskOrResult, [
      this.alias,
      id,
      await this.connection.storeNow(),
    ]);
    if (!row) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return recordWithProgress(deserializeRecord(id, row.data), row.progress);
  }

  /** The last pass, on this process's clock: its age on the server's, back from this one's now. */
  async maintenanceHeartbeat(): Promise<Date | null> {
    const [row] = await this.connection.query<{ value: string }>(this.sql.readMeta, [
      this.alias,
      META_MAINTENANCE_HEARTBEAT,
    ]);
    if (row === undefined) return null;
    const age = Math.max(0, this.connection.clock.now() - Number(row.value));
    return new Date(Date.now() - age);
  }

  async ping(): Promise<void> {
    await this.connection.query('SELECT 1');
  }
}
