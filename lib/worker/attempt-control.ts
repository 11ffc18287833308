import { CancelHook } from '../core/cancel-hook';
import { TaskCancelledError } from '../core/errors/task-cancelled.error';
import { TaskTimeoutError } from '../core/errors/task-timeout.error';
import type { TaskRecord } from '../core/task-record.interface';
import { taskCancelled, taskTimedOut } from '../core/control.messages';

/**
 * The one controller of an attempt, behind its `TaskContext.signal`, which
 * aborts for the first of two reasons: the deadline (a TaskTimeoutError, when
 * the task has a `timeoutMs`) or a cancel request (a TaskCancelledError).
 * `error` then holds that reason. The signal is made only when it is read
 * (an AbortSignal costs microseconds, on the path of every task), aborted at
 * once when the reason came first; without either reason it never aborts.
 * `end` clears the timer and the listener whatever happened.
 */
export class AttemptControl {
  private controller: AbortController | null = null;
  private reason: TaskTimeoutError | TaskCancelledError | null = null;
  private readonly timer: NodeJS.Timeout | null;
  private readonly onCancel: (() => void) | null;

  constructor(
    record: TaskRecord,
    timeoutMs: number | undefined,
    private readonly cancel?: AbortSignal | CancelHook,
  ) {
    // A cancel stored with the task before this lease: it ends before it starts.
    if (record.cancelRequestedAt) {
      this.reason = new TaskCancelledError(taskCancelled(record.id, record.task.name));
    }
    this.timer =
      timeoutMs === undefined
        ? null
        : setTimeout(() => {
            this.stop(
              new TaskTimeoutError(taskTimedOut(record.id, record.task.name, timeoutMs), timeoutMs),
            );
          }, timeoutMs);
    if (!cancel) {
      this.onCancel = null;
      return;
    }
    this.onCancel = () =>
      this.stop(new TaskCancelledError(taskCancelled(record.id, record.task.name)));
    if (cancel instanceof CancelHook) cancel.listen(this.onCancel);
    else if (cancel.aborted) this.onCancel();
    else cancel.addEventListener('abort', this.onCancel, { once: true });
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** The reason the attempt was stopped (deadline or cancel request), else null. */
  get error(): TaskTimeoutError | TaskCancelledError | null {
    return this.reason;
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onCancel === null || !this.cancel) return;
    if (this.cancel instanceof CancelHook) this.cancel.unlisten();
    else this.cancel.removeEventListener('abort', this.onCancel);
  }

  private stop(reason: TaskTimeoutError | TaskCancelledError): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
