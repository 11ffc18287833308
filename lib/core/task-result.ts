import { TaskNotSuccessfulError } from './errors/task-not-successful.error';
import type { TaskDescriptor, TaskErrorRecord, TaskRecord } from './task-record.interface';
import { FINISHED_STATUSES, TaskResultStatus } from './task-result-status.enum';
import { InvalidTaskError } from './errors/invalid-task.error';
import { resultCannotWait, taskNotSuccessful } from './threadmill.messages';
import {
  waitForFinished,
  type FinishedRecordSource,
  type WaitForResultOptions,
} from './wait-for-finished';

/**
 * Where `TaskResult.refresh()` and `wait()` read the newest state from: the
 * task's backend. A source built by hand (a test's) may leave out what only
 * `wait()` needs.
 */
export type TaskRecordSource = Pick<FinishedRecordSource, 'getResult'> &
  Partial<Pick<FinishedRecordSource, 'alias' | 'subscribeFinished'>>;

/**
 * The state of one enqueued task, as returned by `enqueue` and `getResult`.
 * `T` is the task method's awaited return type.
 *
 * @publicApi
 */
export class TaskResult<T = unknown> {
  private record: TaskRecord;

  constructor(
    record: TaskRecord,
    private readonly source: TaskRecordSource,
  ) {
    this.record = record;
  }

  get id(): string {
    return this.record.id;
  }
  get task(): TaskDescriptor {
    return this.record.task;
  }
  get status(): TaskResultStatus {
    return this.record.status;
  }
  get enqueuedAt(): Date {
    return this.record.enqueuedAt;
  }
  get startedAt(): Date | null {
    return this.record.startedAt;
  }
  get finishedAt(): Date | null {
    return this.record.finishedAt;
  }
  get lastAttemptedAt(): Date | null {
    return this.record.lastAttemptedAt;
  }
  get args(): readonly unknown[] {
    return this.record.args;
  }
  /** The task's unique key, or null when it was enqueued without one. */
  get key(): string | null {
    return this.record.task.unique?.key ?? null;
  }
  get backend(): string {
    return this.record.task.backend;
  }
  get errors(): readonly TaskErrorRecord[] {
    return this.record.errors;
  }
  get workerIds(): readonly string[] {
    return this.record.workerIds;
  }
  /** How many times a worker started this task. */
  get attempts(): number {
    return this.record.workerIds.length;
  }
  /**
   * The latest progress the current attempt reported (`TaskContext.progress`),
   * as last read from the store; undefined when it reported none. A retry
   * starts without: an earlier attempt's progress is not shown.
   */
  get progress(): unknown {
    return this.record.progress;
  }
  /**
   * When a cancel was asked of it while a pool held it (null when none):
   * that attempt ends CANCELLED, and no later lease starts it.
   */
  get cancelRequestedAt(): Date | null {
    return this.record.cancelRequestedAt ?? null;
  }
  /** SUCCESSFUL, FAILED or CANCELLED: it will never run again. */
  get isFinished(): boolean {
    return FINISHED_STATUSES.has(this.record.status);
  }

  /**
   * What the task returned.
   *
   * @throws TaskNotSuccessfulError unless the status is SUCCESSFUL.
   */
  get returnValue(): T {
    if (this.record.status !== TaskResultStatus.SUCCESSFUL) {
      throw new TaskNotSuccessfulError(taskNotSuccessful(this.record));
    }
    return this.record.returnValue as T;
  }

  /** The plain stored state (for logging, JSON output and backends). */
  toRecord(): TaskRecord {
    return this.record;
  }

  toJSON(): TaskRecord {
    return this.record;
  }

  /** Re-read this task from its backend. */
  async refresh(): Promise<this> {
    this.record = await this.source.getResult(this.record.id);
    return this;
  }

  /**
   * Waits until the task is final (SUCCESSFUL, FAILED or CANCELLED) without
   * polling, through its backend's feed of finished tasks, then holds that
   * state. Resolves at once when it already is.
   *
   * @example
   * ```ts
   * const result = await this.tasks.enqueue(ReportTasks, 'build', [month]);
   * await result.wait({ timeoutMs: 60_000 });
   * if (result.status === TaskResultStatus.SUCCESSFUL) return result.returnValue;
   * ```
   * @throws TaskWaitTimeoutError when `timeoutMs` passes first (the task goes on).
   * @throws TaskResultDoesNotExist when the task expired or was removed.
   */
  async wait(options: WaitForResultOptions = {}): Promise<this> {
    const { alias, subscribeFinished } = this.source;
    if (alias === undefined || subscribeFinished === undefined) {
      throw new InvalidTaskError(resultCannotWait(this.record.id));
    }
    const source: FinishedRecordSource = {
      alias,
      getResult: (id) => this.source.getResult(id),
      subscribeFinished: (listener) => subscribeFinished.call(this.source, listener),
    };
    this.record = await waitForFinished(source, this.record.id, options);
    return this;
  }
}
