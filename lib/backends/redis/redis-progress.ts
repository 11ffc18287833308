import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisProgressScript } from './redis-progress-script';

/**
 * Running attempts' progress of one RedisBackend alias: the `progress`
 * field of the task hash, written by storeProgress-2.lua only while the
 * attempt still holds its task, and read back with the hash's other fields
 * (TASK_HASH_FIELDS).
 *
 * @internal
 */
export class RedisProgress {
  private readonly script: RedisProgressScript;

  constructor(private readonly context: RedisAliasContext) {
    this.script = new RedisProgressScript(context.connection.client);
  }

  async store(record: TaskRecord, stored: string): Promise<boolean> {
    const { guard, keys, connection } = this.context;
    guard.assertOpen();
    return connection.run(() =>
      this.script.storeProgress(
        { runningKey: keys.running(record.task.queue), taskKey: keys.task(record.id) },
        {
          id: record.id,
          attempt: record.workerIds.length,
          stored,
          liveChannel: keys.liveChannel,
          queue: record.task.queue,
          name: record.task.name,
        },
      ),
    );
  }
}
