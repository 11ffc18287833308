import type { TaskRecord } from './task-record.interface';
import { TaskResult, type TaskRecordSource } from './task-result';

/** How long `settled()` waits for a pending enqueue's move unless told. */
const DEFAULT_SETTLE_MS = 30_000;

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
    private readonly taskSource: TaskRecordSource,
    /**
     * This enqueue made the task (false: a unique key's holder was returned;
     * false too while `pending`).
     */
    readonly created: boolean,
    /** Waits for the move of a pending enqueue (TaskStore.awaitMoved); none when decided. */
    private readonly awaitMoved?: (id: string, timeoutMs: number) => Promise<string>,
  ) {
    super(record, taskSource);
  }

  /**
   * Whether its unique key is still to be decided: an enqueue with a key
   * through a Redis alias's outbox is written with its own id and decided
   * when the relay moves it into Redis, after the commit. `settled()` tells.
   */
  get pending(): boolean {
    return this.awaitMoved !== undefined;
  }

  /**
   * The decided result: this one when it is not `pending`; else, once the
   * task moved, the task that holds its key (its own id and `created` when
   * this enqueue took the key, the holder's id otherwise).
   *
   * @param options.timeoutMs how long to wait for the move (default 30 000 ms).
   * @throws OutboxMoveTimeoutError when it was not moved in time (not committed, rolled back, or no relay).
   * @example
   * ```ts
   * const result = await tasks.enqueue(Welcome, ['42'], { key: 'welcome:42', transaction });
   * // After the commit:
   * const decided = await result.settled();
   * ```
   */
  async settled(options: { timeoutMs?: number } = {}): Promise<EnqueuedTaskResult<T>> {
    if (this.awaitMoved === undefined) return this;
    const holderId = await this.awaitMoved(this.id, options.timeoutMs ?? DEFAULT_SETTLE_MS);
    const record = await this.taskSource.getResult(holderId);
    return new EnqueuedTaskResult<T>(record, this.taskSource, holderId === this.id);
  }
}
