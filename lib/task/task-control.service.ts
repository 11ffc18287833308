import type { AliasOption } from '../core/alias-option.interface';
import { Injectable } from '@nestjs/common';
import { invalidFinishedFilter, invalidCancelFilter } from '../core/control.messages';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { assertKnownQueue } from '../core/known-queue';
import {
  RETRYABLE_BY_HAND,
  type ManualRetryOutcome,
  type RemoveOutcome,
} from '../core/manual-retry';
import { manualRetryRecord } from '../lifecycle/manual-retry';
import type { CancelOutcome } from '../core/ports/control-store.port';
import { finishedSegment, type QueueSegment } from '../core/queue-segment';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResult } from '../core/task-result';
import { FINISHED_STATUSES, TaskResultStatus } from '../core/task-result-status.enum';
import { BackendRegistry } from '../backends/backend.registry';
import { holderAnswer } from './holder-answer';
import { sweepSegment } from './segment-sweep';
import { decideCancel } from '../lifecycle/cancel-decision';
import { aliasOption } from '../utils/alias-option.util';

/** What `cancel` did, and the task as it stands after it. */
export interface TaskCancellation<T = unknown> {
  /**
   * `cancelled`: it had not started and is now final CANCELLED, it will never run;
   * `requested`: it had started, and the pool that holds it aborts its
   * signal (the attempt then ends CANCELLED);
   * `already-final`: it had finished, nothing changed.
   */
  outcome: CancelOutcome;
  result: TaskResult<T>;
}

/** Which waiting tasks `cancelWaiting` cancels: those of a queue, or of a task name (in every queue). */
export type WaitingTaskFilter = { queue: string } | { taskName: string };

export interface CancelWaitingOptions extends AliasOption {
  /** Tasks read per call to the store (default 100). */
  batchSize?: number;
}

/** What `retry` did, and the task as it stands after it. */
export interface TaskRetry<T = unknown> {
  outcome: ManualRetryOutcome;
  result: TaskResult<T>;
}

/** Which final tasks `retryAll` / `removeAll` act on: one queue's, of one status, of one task name or any. */
export interface FinishedTaskFilter {
  queue: string;
  /** The task name; default: every task of the queue. */
  task?: string;
  /** `retryAll` takes FAILED or CANCELLED; `removeAll` any final status. */
  status: 'FAILED' | 'CANCELLED' | 'SUCCESSFUL';
}

export type ManualControlOptions = AliasOption;

const DEFAULT_BATCH = 100;
const WAITING_SEGMENTS: readonly QueueSegment[] = ['ready', 'deferred'];

/**
 * Stops tasks: one by id (waiting or running), or every waiting task of a
 * queue or task name. Retries and removes final tasks by hand: one by id,
 * or those of a queue, status and task name, in batches.
 *
 * @example
 * ```ts
 * const { outcome } = await this.control.cancel(id); // 'cancelled' | 'requested' | 'already-final'
 * const count = await this.control.cancelWaiting({ queue: 'emails' });
 * await this.control.retry(id); // 'retried' | 'not-final' | 'successful' | 'already-retried'
 * await this.control.removeAll({ queue: 'emails', status: 'SUCCESSFUL' });
 * ```
 * @publicApi
 */
@Injectable()
export class TaskControlService {
  constructor(private readonly backends: BackendRegistry) {}

  /**
   * Cancels one task. A waiting (ready or deferred) task is stored CANCELLED
   * at once and never runs. A leased one is asked of the pool that holds it,
   * and the answer waits for that pool (up to CANCEL_ANSWER_WITHIN_MS): one
   * it had not started ends CANCELLED without running (`cancelled`); one it
   * runs has its `TaskContext.signal` aborted with a `TaskCancelledError`
   * (`requested`), and its attempt ends CANCELLED (final, never retried).
   * Either way it never starts after this answers. A finished task is left
   * alone.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async cancel<T = unknown>(
    id: string,
    options: ManualControlOptions = {},
  ): Promise<TaskCancellation<T>> {
    const alias = this.aliasOf(options);
    const { outcome, record } = await holderAnswer(this.backends.get(alias), id);
    return { outcome, result: new TaskResult<T>(record, this.backends.sourceFor(alias)) };
  }

  /**
   * Cancels every task waiting (ready or deferred) in a queue, or of a task
   * name in any queue, reading `batchSize` tasks per call. A task that
   * started between the read and its cancel is asked to stop like any
   * running task, and not counted.
   *
   * @returns how many waiting tasks were cancelled.
   * @throws InvalidTaskError when the filter names neither a queue nor a task.
   */
  async cancelWaiting(
    filter: WaitingTaskFilter,
    options: CancelWaitingOptions = {},
  ): Promise<number> {
    const backend = this.backends.get(this.aliasOf(options));
    const batch = Math.max(1, Math.trunc(options.batchSize ?? DEFAULT_BATCH));
    const queues = 'queue' in filter ? [filter.queue] : backend.queues;
    const taskName = 'taskName' in filter ? filter.taskName : null;
    if (queues.length === 0 || (taskName === null && !('queue' in filter))) {
      throw new InvalidTaskError(invalidCancelFilter(JSON.stringify(filter)));
    }
    let count = 0;
    for (const queue of queues) {
      for (const segment of WAITING_SEGMENTS) {
        count += await sweepSegment(
          backend,
          { queue, segment, taskName, batch },
          // Not cancelled here (it started or finished): passed over, never looked at again.
          async (record) => (await this.cancelIfThere(backend, record.id)) === 'cancelled',
        );
      }
    }
    return count;
  }

  /**
   * Sends a FAILED or CANCELLED task back as a new attempt: READY in its
   * queue at once, its errors and worker ids kept (its history shows),
   * `finishedAt` cleared. The retry budget is not renewed (attempts count
   * over all its runs), so a task whose retries were used up runs exactly
   * once more; one with retries left keeps them. A retry applies only to
   * the attempt it read: of two retries of one task at once, one makes the
   * new attempt and the other answers `already-retried`, even when that
   * attempt has failed again by then.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id, or one removed meanwhile.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async retry<T = unknown>(id: string, options: ManualControlOptions = {}): Promise<TaskRetry<T>> {
    const alias = this.aliasOf(options);
    const backend = this.backends.get(alias);
    const record = await backend.tasks.getResult(id);
    const done = await this.retryRecord(backend, record);
    // Reading again only to report: the task is no longer the attempt this call read.
    const now = done ?? {
      outcome: 'already-retried' as const,
      record: await backend.tasks.getResult(id),
    };
    return {
      outcome: now.outcome,
      result: new TaskResult<T>(now.record, this.backends.sourceFor(alias)),
    };
  }

  /**
   * Deletes a final task: its record, its history entry (so peek and
   * telemetry no longer count it) and its unique key's hold. A waiting or
   * running task is left alone (`not-final`): cancel it first. A removal
   * applies only to the attempt it read: one that another call removed
   * first answers `already-removed`, one retried meanwhile `already-retried`.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async remove(id: string, options: ManualControlOptions = {}): Promise<RemoveOutcome> {
    const backend = this.backends.get(this.aliasOf(options));
    const record = await backend.tasks.getResult(id);
    if (!FINISHED_STATUSES.has(record.status)) return 'not-final';
    if (await backend.control.removeFinished(record)) return 'removed';
    try {
      await backend.tasks.getResult(id);
      return 'already-retried';
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) return 'already-removed';
      throw error;
    }
  }

  /**
   * Retries (as `retry`) every FAILED or CANCELLED task of a queue, of one
   * task name or any, reading `batchSize` tasks per call.
   *
   * @returns how many tasks were sent back.
   * @throws InvalidTaskError when the status is not FAILED or CANCELLED.
   */
  async retryAll(filter: FinishedTaskFilter, options: CancelWaitingOptions = {}): Promise<number> {
    if (!RETRYABLE_BY_HAND.has(filter.status as TaskResultStatus)) {
      throw new InvalidTaskError(invalidFinishedFilter('retryAll', JSON.stringify(filter)));
    }
    return this.sweepFinished(filter, options, async (backend, record) =>
      backend.control.retryFinished(record, manualRetryRecord(record)),
    );
  }

  /**
   * Removes (as `remove`) every task of a queue in one final status, of one
   * task name or any, reading `batchSize` tasks per call.
   *
   * @returns how many tasks were removed.
   * @throws InvalidTaskError when the status is not a final one.
   */
  async removeAll(filter: FinishedTaskFilter, options: CancelWaitingOptions = {}): Promise<number> {
    if (!FINISHED_STATUSES.has(filter.status as TaskResultStatus)) {
      throw new InvalidTaskError(invalidFinishedFilter('removeAll', JSON.stringify(filter)));
    }
    return this.sweepFinished(filter, options, (backend, record) =>
      backend.control.removeFinished(record),
    );
  }

  private async sweepFinished(
    filter: FinishedTaskFilter,
    options: CancelWaitingOptions,
    act: (backend: TaskBackend, record: TaskRecord) => Promise<boolean>,
  ): Promise<number> {
    const backend = this.backends.get(this.aliasOf(options));
    assertKnownQueue(backend.alias, backend.queues, filter.queue);
    const handled = new Set<string>();
    const where = {
      queue: filter.queue,
      segment: finishedSegment(filter.status as TaskResultStatus),
      taskName: filter.task ?? null,
      batch: Math.max(1, Math.trunc(options.batchSize ?? DEFAULT_BATCH)),
    };
    return sweepSegment(backend, where, async (record) => {
      // A task retried here that failed again meanwhile is not retried twice by one call.
      if (handled.has(record.id) || !(await act(backend, record))) return false;
      handled.add(record.id);
      return true;
    });
  }

  /** The retry of a task as read: its outcome, or null when it changed meanwhile. */
  private async retryRecord(
    backend: TaskBackend,
    record: TaskRecord,
  ): Promise<{ outcome: ManualRetryOutcome; record: TaskRecord } | null> {
    if (record.status === TaskResultStatus.SUCCESSFUL) return { outcome: 'successful', record };
    if (!RETRYABLE_BY_HAND.has(record.status)) return { outcome: 'not-final', record };
    const retried = manualRetryRecord(record);
    return (await backend.control.retryFinished(record, retried))
      ? { outcome: 'retried', record: retried }
      : null;
  }

  /** A task gone meanwhile (finished and expired) has nothing left to cancel. */
  private async cancelIfThere(backend: TaskBackend, id: string): Promise<CancelOutcome | null> {
    try {
      return (await backend.control.cancel(id, decideCancel)).outcome;
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) return null;
      throw error;
    }
  }

  private aliasOf(options: AliasOption): string {
    return aliasOption(options, 'TaskControlService') ?? this.backends.defaultAlias;
  }
}
