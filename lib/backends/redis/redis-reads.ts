import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { isFinishedSegment, type QueueSegment } from '../../core/queue-segment';
import type { TaskRecord } from '../../core/task-record.interface';
import { FINISHED_STATUSES } from '../../core/task-result-status.enum';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { TASK_HASH_FIELDS } from './redis-task-hash';

/**
 * What one RedisBackend alias reads without changing anything: the tasks of
 * a queue's segment (peek), one task's record, and when the last
 * maintenance pass ran.
 *
 * @internal
 */
export class RedisReads {
  constructor(private readonly context: RedisAliasContext) {}

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    this.context.guard.assertQueue(queue);
    return this.context.connection.run(async () => {
      // History is scored by Redis's time: what is within resultTtl is measured on it too.
      const finished = isFinishedSegment(segment);
      // Finished tasks within the longest retention; each queue and status's own limit is applied
      // by the trimming step of every pass.
      const since = finished
        ? (await this.context.maintenance.storeNow()) -
          this.context.settings.retention.longestMaxAgeMs
        : 0;
      const found: TaskRecord[] = [];
      for (let offset = 0; found.length < count; offset += count) {
        const ids = await this.segmentIds(queue, segment, offset, count, since);
        found.push(...(await this.readMany(ids, segment)));
        if (ids.length < count) break;
      }
      return found.slice(0, count);
    });
  }

  async getResult(id: string): Promise<TaskRecord> {
    // Live or finished, a task is its one hash.
    const values = await this.context.connection.run(() =>
      this.context.connection.client.hmget(this.context.keys.task(id), ...TASK_HASH_FIELDS),
    );
    const record = this.context.codec.decodeStored(id, values);
    if (record) return record;
    throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.context.settings.alias));
  }

  /**
   * The last pass on this process's clock: its age is measured on Redis's
   * clock, which wrote it, so a health check whose clock is off still sees
   * how long ago the last maintenance pass ran.
   */
  async maintenanceHeartbeat(): Promise<Date | null> {
    const { nowMs, maintenancePassMs } = await this.context.connection.run(() =>
      this.context.scripts.storeTime(this.context.keys.maintenanceHeartbeat),
    );
    return maintenancePassMs === null
      ? null
      : new Date(Date.now() - Math.max(0, nowMs - maintenancePassMs));
  }

  /** `since` (Redis's clock): the oldest history score a finished segment shows. */
  private async segmentIds(
    queue: string,
    segment: QueueSegment,
    offset: number,
    count: number,
    since: number,
  ): Promise<string[]> {
    const { client } = this.context.connection;
    switch (segment) {
      case 'ready':
        return client.zrange(this.context.keys.queue(queue), offset, offset + count - 1);
      case 'running':
        return client.zrange(this.context.keys.running(queue), offset, offset + count - 1);
      case 'deferred':
        return client.zrange(this.context.keys.deferred(queue), offset, offset + count - 1);
      case 'successful':
      case 'failed':
      case 'cancelled':
        // Newest first, and only within resultTtl (trimming may lag a maintenance interval).
        return client.zrevrangebyscore(
          this.context.keys.history(queue, segment),
          '+inf',
          since,
          'LIMIT',
          offset,
          count,
        );
    }
  }

  /** The records of ids in one segment; ids whose data expired or cannot be read are skipped. */
  private async readMany(ids: readonly string[], segment: QueueSegment): Promise<TaskRecord[]> {
    if (ids.length === 0) return [];
    const finished = isFinishedSegment(segment);
    const pipeline = this.context.connection.client.pipeline();
    for (const id of ids) pipeline.hmget(this.context.keys.task(id), ...TASK_HASH_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    const records: TaskRecord[] = [];
    ids.forEach((id, i) => {
      const [error, values] = replies[i] ?? [null, null];
      if (error) return;
      try {
        const record = this.context.codec.decodeStored(id, values as (string | null)[]);
        // Listing and reading are two steps: a task listed live may have finished since.
        if (record && FINISHED_STATUSES.has(record.status) === finished) records.push(record);
      } catch (readError) {
        this.context.logger.debug(`peek skipped task ${id}: ${String(readError)}`);
      }
    });
    return records;
  }
}
