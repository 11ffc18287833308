import type { TaskRecord } from '../task-record.interface';
import type { TaskTransaction } from '../task-transaction';

/**
 * What an app that enqueues uses: store new tasks, read one back. The task
 * layer (TaskService, TaskHandle) depends on this part and on `feeds`.
 */
export interface TaskStore {
  /**
   * Store a new READY task (or deferred, with `task.runAfter` in the future).
   * Throws TaskAlreadyExistsError (with the stored task) when its id is
   * already stored, and stores nothing. A record with `task.unique` is
   * decided by its key (planUniqueEnqueue) in the same atomic step that
   * stores it: when the key is held, the holder is returned in its place
   * (under the holder's own id, which is how the caller tells), or, in
   * debounce mode, the waiting holder takes the record's data and due time
   * and is returned; UniqueKeyHeldError when a window holds a key whose task
   * is gone. Ids are checked before keys. A store with a round trip to
   * save (Redis, SQLite) gathers the enqueues of one tick into one atomic
   * step (EnqueueCoalescer): each is decided as if it came alone, in call
   * order, and gets its own record or error.
   */
  enqueue(record: TaskRecord): Promise<TaskRecord>;
  /**
   * Store many tasks at once; all or none (TaskAlreadyExistsError for the
   * first stored id). Per record, in order, what `enqueue` of it would
   * return, the records decided as if sent one by one.
   */
  enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]>;
  /**
   * Stores the records as `enqueueMany` does, all or none, but inside the
   * app's open transaction: they commit or roll back with it, and their
   * announcements go out with its commit. A refusal undoes only this call's
   * writes and leaves the transaction usable. A store in the app's own
   * database (Postgres) has it, and a Redis alias with an outbox, which
   * writes the records as they are and decides their unique keys only as
   * they move (see `awaitMoved`); the task layer refuses the call elsewhere.
   */
  enqueueInTransaction?(
    transaction: TaskTransaction,
    records: readonly TaskRecord[],
  ): Promise<TaskRecord[]>;
  /**
   * For a store whose `enqueueInTransaction` decides unique keys later (a
   * Redis alias's outbox, at the move): the id holding the task written
   * under `id`, once moved (its own, or its key's holder's). Throws
   * OutboxMoveTimeoutError when it was not moved within `timeoutMs`.
   */
  awaitMoved?(id: string, timeoutMs: number): Promise<string>;
  /** The stored task; throws `TaskResultDoesNotExist` for an unknown or expired id. */
  getResult(id: string): Promise<TaskRecord>;
}
