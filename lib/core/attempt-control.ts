import { TaskCancelledError } from './errors/task-cancelled.error';
import { TaskTimeoutError } from './errors/task-timeout.error';
import type { TaskRecord } from './task-record.interface';
import { taskCancelled, taskTimedOut } from './control.messages';

/** A whole number of milliseconds above 0: what `timeoutMs` accepts. */
export function isValidTimeoutMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * The one controller of an attempt, behind its `TaskContext.signal`, which
 * aborts for the first of two reasons: the deadline (a TaskTimeoutError, when
 * the task has a `timeoutMs`) or a cancel request (a TaskCancelledError, when
 * `cancel` aborts). `error` then holds that reason. Without either the
 * signal still exists (a task can always hand it on) and never aborts.
 * `end` clears the timer and the listener whatever happened.
 */
export class AttemptControl {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | null;
  private readonly onCancel: (() => void) | null;

  constructor(
    record: TaskRecord,
    timeoutMs: number | undefined,
    private readonly cancel?: AbortSignal,
  ) {
    this.timer =
      timeoutMs === undefined
        ? null
        : setTimeout(() => {
            this.controller.abort(
              new TaskTimeoutError(taskTimedOut(record.id, record.task.name, timeoutMs), timeoutMs),
            );
          }, timeoutMs);
    if (!cancel) {
      this.onCancel = null;
      return;
    }
    this.onCancel = () =>
      this.controller.abort(new TaskCancelledError(taskCancelled(record.id, record.task.name)));
    if (cancel.aborted) this.onCancel();
    else cancel.addEventListener('abort', this.onCancel, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The reason the attempt was stopped (deadline or cancel request), else null. */
  get error(): TaskTimeoutError | TaskCancelledError | null {
    const reason: unknown = this.controller.signal.reason;
    return reason instanceof TaskTimeoutError || reason instanceof TaskCancelledError
      ? reason
      : null;
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onCancel) this.cancel?.removeEventListener('abort', this.onCancel);
  }
}
