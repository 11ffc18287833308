import { TaskTimeoutError } from './errors/task-timeout.error';
import type { TaskRecord } from './task-record.interface';
import { taskTimedOut } from './threadmill.messages';

/** A whole number of milliseconds above 0: what `timeoutMs` accepts. */
export function isValidTimeoutMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * The time limit of one attempt: `signal` aborts at the deadline with a
 * TaskTimeoutError reason, which `error` then holds. Without a limit the
 * signal still exists (a task can always hand it on) and never aborts on
 * its own. `end` clears the timer whatever happened.
 */
export class AttemptTimeout {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | null;

  constructor(record: TaskRecord, timeoutMs: number | undefined) {
    if (timeoutMs === undefined) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => {
      this.controller.abort(
        new TaskTimeoutError(taskTimedOut(record.id, record.task.name, timeoutMs), timeoutMs),
      );
    }, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The TaskTimeoutError once the deadline passed, else null. */
  get error(): TaskTimeoutError | null {
    const reason: unknown = this.controller.signal.reason;
    return reason instanceof TaskTimeoutError ? reason : null;
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
