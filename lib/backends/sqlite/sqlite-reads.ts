import type { Logger } from '@nestjs/common';
import type { BackendTelemetry } from '../../core/backend-telemetry.interface';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { isFinishedSegment, type QueueSegment } from '../../core/queue-segment';
import { recordWithProgress } from '../../core/task-progress';
import type { TaskRecord } from '../../core/task-record.interface';
import { deserializeRecord } from '../../core/task-serializer';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { SqliteBackendSettings } from './sqlite-backend-options';
import type { SqliteConnection } from './sqlite-connection';
import { errorText } from './sqlite-errors';
import { META_MAINTENANCE_HEARTBEAT } from './sqlite-schema';

/**
 * What callers and operators read of a SqliteBackend: a segment's tasks,
 * counts and rates, one task's result, the maintenance heartbeat. Reads take
 * no write lock (WAL), so they never wait for or block the writers.
 *
 * @internal
 */
export class SqliteReads {
  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    private readonly connection: SqliteConnection,
    private readonly logger: Logger,
  ) {}

  peek(queue: string, segment: QueueSegment, count: number): TaskRecord[] {
    const { reads } = this.connection.sql;
    const now = Date.now();
    const rows = this.connection.guard(() =>
      isFinishedSegment(segment)
        ? reads.peekResults.all(
            this.alias,
            queue,
            segment.toUpperCase(),
            now - this.settings.retention.longestMaxAgeMs,
            now,
            count,
          )
        : reads.peekTasks[segment].all(this.alias, queue, now, count),
    );
    const records: TaskRecord[] = [];
    for (const row of rows) {
      try {
        records.push(recordWithProgress(deserializeRecord(row.id, row.data), row.progress));
      } catch (error) {
        // Peek only reads: the consumer that acquires this task fails it properly.
        this.logger.warn(`peek skipped task ${row.id} of "${this.alias}": ${errorText(error)}`);
      }
    }
    return records;
  }

  telemetry(intervalMs: number): BackendTelemetry {
    const { reads } = this.connection.sql;
    const { alias } = this;
    const now = Date.now();
    return this.connection.guard(() =>
      this.connection.snapshot(() => {
        const telemetry: BackendTelemetry = { queues: {} };
        for (const queue of this.settings.queues) {
          const tasks = reads.countTasks.get({ alias, queue, now });
          const results = reads.countResults.get({
            alias,
            queue,
            since: now - this.settings.retention.longestMaxAgeMs,
            now,
            windowStart: now - intervalMs,
          });
          const ingress = reads.countIngress.get({ alias, queue, since: now - intervalMs }) ?? 0;
          telemetry.queues[queue] = {
            counts: {
              ready: tasks?.ready ?? 0,
              running: tasks?.running ?? 0,
              deferred: tasks?.deferred ?? 0,
              successful: results?.successful ?? 0,
              failed: results?.failed ?? 0,
              cancelled: results?.cancelled ?? 0,
            },
            rates: {
              intervalMs,
              ingress,
              egress:
                (results?.successfulInWindow ?? 0) +
                (results?.failedInWindow ?? 0) +
                (results?.cancelledInWindow ?? 0),
              failed: results?.failedInWindow ?? 0,
            },
          };
        }
        return telemetry;
      }),
    );
  }

  getResult(id: string): TaskRecord {
    const { tasks } = this.connection.sql;
    const now = Date.now();
    // Tasks before results, in one snapshot: an acknowledge moves a row from the first to the second.
    const row = this.connection.guard(() =>
      this.connection.snapshot(
        () =>
          tasks.selectTask.get(this.alias, id, now) ?? tasks.selectResult.get(this.alias, id, now),
      ),
    );
    if (!row) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return recordWithProgress(deserializeRecord(id, row.data), row.progress);
  }

  maintenanceHeartbeat(): Date | null {
    const { reads } = this.connection.sql;
    const value = this.connection.guard(() =>
      reads.readMeta.get(this.alias, META_MAINTENANCE_HEARTBEAT),
    );
    return value === undefined ? null : new Date(Number(value));
  }

  ping(): void {
    const { reads } = this.connection.sql;
    this.connection.guard(() => reads.ping.get());
  }
}
