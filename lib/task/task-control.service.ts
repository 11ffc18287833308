import { Injectable } from '@nestjs/common';

import {
  InvalidTaskError,
  TaskResult,
  TaskResultDoesNotExist,
  invalidCancelFilter,
  type CancelOutcome,
  type QueueSegment,
  type TaskBackend,
} from '../core';
import { BackendRegistry } from '../backends/backend.registry';

/** What `cancel` did, and the task as it stands after it. */
export interface TaskCancellation<T = unknown> {
  /**
   * `cancelled`: it was waiting and is now final CANCELLED, it will never run;
   * `requested`: it is running, and the pool that holds it aborts its
   * signal within about a second (the attempt then ends CANCELLED);
   * `already-final`: it had finished, nothing changed.
   */
  outcome: CancelOutcome;
  result: TaskResult<T>;
}

/** Which waiting tasks `cancelWaiting` cancels: those of a queue, or of a task name (in every queue). */
export type WaitingTaskFilter = { queue: string } | { taskName: string };

export interface CancelWaitingOptions {
  /** The backend alias; default: the only configured, else `'default'`. */
  backend?: string;
  /** Tasks read per call to the store (default 100). */
  batchSize?: number;
}

const DEFAULT_BATCH = 100;
const WAITING_SEGMENTS: readonly QueueSegment[] = ['ready', 'deferred'];

/**
 * Stops tasks: one by id (waiting or running), or every waiting task of a
 * queue or task name. Also reached as `TaskService.cancel` and a task
 * handle's `cancel`.
 *
 * @example
 * ```ts
 * const { outcome } = await this.control.cancel(id); // 'cancelled' | 'requested' | 'already-final'
 * const count = await this.control.cancelWaiting({ queue: 'emails' });
 * ```
 * @publicApi
 */
@Injectable()
export class TaskControlService {
  constructor(private readonly backends: BackendRegistry) {}

  /**
   * Cancels one task. A waiting (ready or deferred) task is stored CANCELLED
   * at once and never runs; a running one's `TaskContext.signal` is aborted
   * with a `TaskCancelledError` by the pool that holds it, and its attempt
   * ends CANCELLED (final, never retried). A finished task is left alone.
   *
   * @throws TaskResultDoesNotExist for an unknown or expired id.
   * @throws UnknownBackendError when no backend has this alias.
   */
  async cancel<T = unknown>(
    id: string,
    backend: string = this.backends.defaultAlias,
  ): Promise<TaskCancellation<T>> {
    const { outcome, record } = await this.backends.get(backend).cancel(id);
    return { outcome, result: new TaskResult<T>(record, this.backends.sourceFor(backend)) };
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
    const backend = this.backends.get(options.backend ?? this.backends.defaultAlias);
    const batch = Math.max(1, Math.trunc(options.batchSize ?? DEFAULT_BATCH));
    const queues = 'queue' in filter ? [filter.queue] : backend.queues;
    const taskName = 'taskName' in filter ? filter.taskName : null;
    if (queues.length === 0 || (taskName === null && !('queue' in filter))) {
      throw new InvalidTaskError(invalidCancelFilter(JSON.stringify(filter)));
    }
    let count = 0;
    for (const queue of queues) {
      for (const segment of WAITING_SEGMENTS) {
        count += await this.cancelSegment(backend, queue, segment, taskName, batch);
      }
    }
    return count;
  }

  /**
   * One segment, in batches: what is cancelled leaves the segment, so each
   * read asks for one batch more than the tasks it already passed over.
   */
  private async cancelSegment(
    backend: TaskBackend,
    queue: string,
    segment: QueueSegment,
    taskName: string | null,
    batch: number,
  ): Promise<number> {
    let count = 0;
    const skipped = new Set<string>();
    for (;;) {
      const limit = skipped.size + batch;
      const records = await backend.peek(queue, segment, limit);
      const fresh = records.filter((r) => !skipped.has(r.id));
      for (const record of fresh) {
        if (taskName === null || record.task.name === taskName) {
          if ((await this.cancelIfThere(backend, record.id)) === 'cancelled') {
            count++;
            continue;
          }
        }
        // Another task's, or not cancelled here (it started or finished): never looked at again.
        skipped.add(record.id);
      }
      if (records.length < limit || fresh.length === 0) return count;
    }
  }

  /** A task gone meanwhile (finished and expired) has nothing left to cancel. */
  private async cancelIfThere(backend: TaskBackend, id: string): Promise<CancelOutcome | null> {
    try {
      return (await backend.cancel(id)).outcome;
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) return null;
      throw error;
    }
  }
}
