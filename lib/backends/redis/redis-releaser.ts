import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { RedisCallGuard } from './redis-call-guard';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import { RedisRecordCodec } from './redis-record.codec';
import type { ReleaseItem } from './redis-script-types';
import { type RedisScripts, WAKE_BOUND } from './redis-scripts';

/**
 * Puts leased tasks of one RedisBackend alias back in their ready queue
 * unsettled, while still leased: after they ran (release), or as if never
 * leased (unlease: the lease's worker comes off the task again).
 *
 * @internal
 */
export class RedisReleaser {
  constructor(
    private readonly keys: RedisKeys,
    private readonly connection: RedisConnection,
    private readonly scripts: RedisScripts,
    private readonly guard: RedisCallGuard,
  ) {}

  release(records: readonly TaskRecord[]): Promise<number> {
    return this.putBack(records, false);
  }

  unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.putBack(records, true);
  }

  private async putBack(records: readonly TaskRecord[], unstarted: boolean): Promise<number> {
    this.guard.assertOpen();
    if (records.length === 0) return 0;
    const items = records.map((record): ReleaseItem => {
      const queue = this.guard.queueOf(record);
      return {
        runningKey: this.keys.running(queue),
        queueKey: this.keys.queue(queue),
        taskKey: this.keys.task(record.id),
        wakeKey: this.keys.wake(queue),
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
    return this.connection.run(() =>
      this.scripts.release(items, TaskResultStatus.READY, WAKE_BOUND, this.keys.poolTasksPrefix),
    );
  }
}
