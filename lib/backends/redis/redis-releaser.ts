import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisRecordCodec } from './redis-record.codec';
import type { ReleaseItem } from './redis-script-types';
import { WAKE_BOUND } from './redis-scripts';

/**
 * Puts leased tasks of one RedisBackend alias back in their ready queue
 * unsettled, while still leased: after they ran (release), or as if never
 * leased (unlease: the lease's worker comes off the task again).
 *
 * @internal
 */
export class RedisReleaser {
  constructor(private readonly context: RedisAliasContext) {}

  release(records: readonly TaskRecord[]): Promise<number> {
    return this.releaseOrUnlease(records, false);
  }

  unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.releaseOrUnlease(records, true);
  }

  private async releaseOrUnlease(
    records: readonly TaskRecord[],
    unstarted: boolean,
  ): Promise<number> {
    if (records.length === 0) return 0;
    const items = records.map((record): ReleaseItem => {
      const queue = this.context.guard.queueOf(record);
      return {
        runningKey: this.context.keys.running(queue),
        queueKey: this.context.keys.queue(queue),
        taskKey: this.context.keys.task(record.id),
        wakeKey: this.context.keys.wake(queue),
        id: record.id,
        fallbackScore: RedisRecordCodec.fallbackScore(record),
        ...(unstarted && {
          unstarted: {
            leasedWorkers: JSON.stringify(record.workerIds),
            workersBefore: JSON.stringify(record.workerIds.slice(0, -1)),
          },
        }),
      };
    });
    return this.context.connection.run(() =>
      this.context.scripts.release(
        items,
        TaskResultStatus.READY,
        WAKE_BOUND,
        this.context.keys.poolTasksPrefix,
      ),
    );
  }
}
