import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisProgressScript } from './redis-progress-script';

/**
 * Running attempts' progress of one RedisBackend alias: the `progress`
 * field of the task hash, written by storeProgress.lua only while the
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

  /** Stores each entry while its attempt holds its task, all in one call; per entry whether it did. */
  async store(entries: readonly { record: TaskRecord; stored: string }[]): Promise<boolean[]> {
    const { keys, connection } = this.context;
    if (entries.length === 0) return [];
    const items = entries.map(({ record, stored }) => ({
      runningKey: keys.running(record.task.queue),
      taskKey: keys.task(record.id),
      id: record.id,
      attempt: record.workerIds.length,
      stored,
      queue: record.task.queue,
      name: record.task.name,
    }));
    return connection.run(() => this.script.storeProgress(items, keys.liveChannel));
  }
}
