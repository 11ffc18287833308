import type { LoggerService } from '@nestjs/common';

import { cancelledRecord } from '../../lifecycle/cancelled-record';
import type { CancelRequest } from '../../core/ports/control-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { taskCancelRequested } from '../worker.messages';
import { CancelWatch } from './cancel-watch';

export interface ChildCancelsDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** The child's pool: without one (or without `cancelPoll`), no request is read. */
  readonly poolId?: string;
  readonly cancelPoll?: { everyMs: number; requestTtlMs: number; freshMs: number };
  /** Takes a finished attempt's outcome to the store (the child's OutcomeQueue). */
  readonly store: (record: TaskRecord) => void;
  /** Takes `id` off the prefetch shelf when it waits there under lease `lease`. */
  readonly takeWaiting: (id: string, lease: string) => TaskRecord | undefined;
  /**
   * Aborts the signal of `id` when this child runs it under lease `lease`:
   * true when it does (or did already), null when it holds it but has not
   * started it, false when it does not hold that lease.
   */
  readonly stopRunning: (id: string, lease: string) => boolean | null;
  /** Whether the child holds a task, running or waiting to start. */
  readonly holding: () => boolean;
}

/**
 * The cancels of the tasks one child holds. Its pool's requests are read
 * (CancelWatch) and each is handled: a task that waits unstarted ends
 * CANCELLED without running, a running one has its signal aborted. And the
 * answer to "may this leased task start?": unless a cancel came first, one
 * stored with it when it was leased (cancelRequestedAt) or one the last read
 * named; when that read is too old to tell, the task waits for the next one,
 * so a `cancel()` that answered never sees its task start (see
 * cancel-delivery). The request of a task ended unstarted is dropped only
 * once its CANCELLED outcome is stored: a `cancel()` waiting for the holder
 * then finds the task final, never a dropped request of a task still
 * RUNNING in the store.
 *
 * @internal
 */
export class ChildCancels {
  private readonly requests: CancelWatch | null;
  /** Ended unstarted, by id: true once the CANCELLED outcome is stored. */
  private readonly ended = new Map<string, boolean>();

  constructor(private readonly deps: ChildCancelsDeps) {
    this.requests = CancelWatch.of(
      deps,
      (request) => this.handle(request),
      // A task ended unstarted keeps the reads going until its request is dropped.
      () => deps.holding() || this.ended.size > 0,
    );
  }

  /** Starts reading the pool's requests. */
  watch(): void {
    this.requests?.start();
  }

  unwatch(): void {
    this.requests?.stop();
  }

  /**
   * Starts the leased task `record` unless a cancel came first; else ends it
   * CANCELLED without running it, after `cancelled` (its slot is free). When
   * the last read is too old to tell, asks again after the next one, while
   * the task is still the child's to start (`held`).
   */
  start(
    record: TaskRecord,
    task: { held: () => boolean; start: () => void; cancelled: () => void },
  ): void {
    if (!task.held()) return;
    // Null (the last read is too old to tell) is an answer here, not a missing one.
    let mayStart: boolean | null = !record.cancelRequestedAt;
    if (mayStart && this.requests) mayStart = this.requests.mayStart(record.id);
    if (mayStart === null) {
      void this.requests?.sync().then(() => this.start(record, task));
    } else if (mayStart) {
      task.start();
    } else {
      task.cancelled();
      // Leased with its mark, it was cancelled under an earlier lease: no request names this one.
      this.end(record, !record.cancelRequestedAt);
    }
  }

  /** Ends a leased task CANCELLED without running it; `requested`: a request for it will be read. */
  private end(record: TaskRecord, requested = true): void {
    this.deps.logger.log(taskCancelRequested(record));
    if (requested) this.ended.set(record.id, false);
    this.deps.store(cancelledRecord(record, new Date()));
  }

  /** Outcomes the store now holds. */
  stored(batch: readonly TaskRecord[]): void {
    if (this.ended.size === 0) return;
    for (const { id } of batch) if (this.ended.has(id)) this.ended.set(id, true);
  }

  /** A request: true when it is handled and may be dropped. */
  private handle({ id, lease }: CancelRequest): boolean {
    const stored = this.ended.get(id);
    if (stored !== undefined) {
      if (stored) this.ended.delete(id);
      return stored;
    }
    const waiting = this.deps.takeWaiting(id, lease);
    if (waiting) {
      // Never started: CANCELLED without running, as a waiting task is.
      this.end(waiting);
      return false;
    }
    // One that waits for this very read to start ends unstarted when it looks (mayStart).
    return this.deps.stopRunning(id, lease) === true;
  }
}
