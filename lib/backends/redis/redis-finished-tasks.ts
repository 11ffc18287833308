import { isSameFinished, uniqueKeyHeldAgain } from '../../core/manual-retry';
import { finishedSegment } from '../../core/queue-segment';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisFinishedScripts } from './redis-finished-scripts';
import type { FinishedTaskKeys } from './redis-script-types';
import { RedisRecordCodec } from './redis-record.codec';
import { TASK_HASH_FIELDS } from './redis-task-hash';
import { WAKE_BOUND } from './redis-scripts';

/** Index of `outcome` in TASK_HASH_FIELDS. */
const OUTCOME_FIELD = TASK_HASH_FIELDS.indexOf('outcome');

/**
 * Final tasks of one RedisBackend alias retried or removed by hand
 * (retryFinished-5.lua, removeFinished-3.lua). The task is read here and
 * compared with the one the caller read; the script then acts only while
 * the stored outcome is still the one read here, so two retries of one
 * task make one new attempt.
 *
 * @internal
 */
export class RedisFinishedTasks {
  private readonly scripts: RedisFinishedScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.scripts = new RedisFinishedScripts(context.connection.client);
  }

  async retry(finished: TaskRecord, retried: TaskRecord): Promise<boolean> {
    const outcomeSeen = await this.outcomeIfStill(finished);
    if (outcomeSeen === null) return false;
    const { keys, connection, codec } = this.context;
    const queue = finished.task.queue;
    return connection.run(() =>
      this.scripts.retryFinished(
        {
          ...this.keysOf(finished),
          queueKey: keys.queue(queue),
          wakeKey: keys.wake(queue),
          uniqueKeysKey: keys.uniqueKeys,
        },
        {
          id: finished.id,
          outcomeSeen,
          readyStatus: TaskResultStatus.READY,
          data: codec.encodeLive(retried),
          workersJson: JSON.stringify(retried.workerIds),
          fallbackScore: RedisRecordCodec.fallbackScore(retried),
          wakeBound: WAKE_BOUND,
          uniqueKey: uniqueKeyHeldAgain(retried),
          taskPrefix: keys.taskPrefix,
          windowPrefix: keys.uniqueWindowPrefix,
        },
      ),
    );
  }

  async remove(finished: TaskRecord): Promise<boolean> {
    const outcomeSeen = await this.outcomeIfStill(finished);
    if (outcomeSeen === null) return false;
    return this.context.connection.run(() =>
      this.scripts.removeFinished(
        { ...this.keysOf(finished), uniqueKeysKey: this.context.keys.uniqueKeys },
        { id: finished.id, outcomeSeen, uniqueKey: finished.task.unique?.key ?? null },
      ),
    );
  }

  private keysOf(finished: TaskRecord): FinishedTaskKeys {
    const { keys } = this.context;
    return {
      taskKey: keys.task(finished.id),
      historyKey: keys.history(finished.task.queue, finishedSegment(finished.status)),
    };
  }

  /** The stored `outcome` field while the stored task is still `finished`, else null. */
  private async outcomeIfStill(finished: TaskRecord): Promise<string | null> {
    const { connection, keys, codec } = this.context;
    const values = await connection.run(() =>
      connection.client.hmget(keys.task(finished.id), ...TASK_HASH_FIELDS),
    );
    const outcome = values[OUTCOME_FIELD];
    const stored = codec.decodeStored(finished.id, values);
    return outcome !== null && stored !== null && isSameFinished(stored, finished) ? outcome : null;
  }
}
