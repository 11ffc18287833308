import type { TaskRecord } from './task-record.interface';
import { TaskResult, type TaskRecordSource } from './task-result';

/**
 * What an enqueue returns: the task's state, and whether this enqueue made
 * it. `created` is false when a unique key returned the task that holds it
 * (and, in debounce mode, gave it this enqueue's arguments). It describes
 * the enqueue, not the task, so it is not stored: `getResult` and
 * `refresh()` read the task alone, and `toJSON()` is its record.
 *
 * @example
 * ```ts
 * const result = await tasks.task(MailTasks, 'sendWelcome').using({ key: 'user-42' }).enqueue('42');
 * if (!result.created) this.logger.log(`already queued as ${result.id}`);
 * ```
 * @publicApi
 */
export class EnqueuedTaskResult<T = unknown> extends TaskResult<T> {
  constructor(
    record: TaskRecord,
    source: TaskRecordSource,
    /** This enqueue made the task (false: a unique key's holder was returned). */
    readonly created: boolean,
  ) {
    super(record, source);
  }
}
