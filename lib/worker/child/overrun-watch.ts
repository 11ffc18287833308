import type { HardStopReason } from '../worker-ipc';

/** Least time a task that ran past its `timeoutMs` has to end by its signal before its child is stopped. */
export const TIMEOUT_GRACE_MIN_MS = 500;
/** Share of `timeoutMs` it has for that, when larger than TIMEOUT_GRACE_MIN_MS. */
export const TIMEOUT_GRACE_SHARE = 0.025;

/**
 * How long after its time limit an attempt that ignores its signal still
 * runs before its child is stopped: half of the max(1 s, 5% of `timeoutMs`)
 * within which the attempt is to be recorded final, the other half left for
 * the pool to stop the child and store it.
 */
export function timeoutGraceMs(timeoutMs: number): number {
  return Math.max(TIMEOUT_GRACE_MIN_MS, Math.round(TIMEOUT_GRACE_SHARE * timeoutMs));
}

/**
 * Asks the pool to stop this child when a task it runs overruns what it may:
 * a cancelled task past its `cancel.hardStopAfterMs`, or any task past its
 * `timeoutMs` plus timeoutGraceMs. Code that ignores its signal can only be
 * ended with its process; the pool kills the child, stores the task
 * (CANCELLED, or failed with TaskTimeoutError and retried per its policy)
 * and puts the child's other tasks back unfailed. One timer per limit,
 * cleared when the task ends.
 *
 * @internal
 */
export class OverrunWatch {
  private readonly timers = new Map<string, NodeJS.Timeout[]>();

  /**
   * @param stillRunning whether the attempt `token` stood for at arming time still runs.
   * @param hardStop asks the pool to stop this child for `id`.
   */
  constructor(
    private readonly stillRunning: (id: string, token: object) => boolean,
    private readonly hardStop: (id: string, reason: HardStopReason) => void,
  ) {}

  /** A task started: watched against its time limit, when it has one. */
  started(id: string, token: object, timeoutMs: number | undefined): void {
    if (timeoutMs !== undefined)
      this.arm(id, token, timeoutMs + timeoutGraceMs(timeoutMs), 'timeout');
  }

  /** A running task was asked to stop: watched against its hard stop, when it has one. */
  cancelled(id: string, token: object, hardStopAfterMs: number | undefined): void {
    if (hardStopAfterMs !== undefined) this.arm(id, token, hardStopAfterMs, 'cancel');
  }

  /** A task ended (finished, released or abandoned): nothing more to watch. */
  ended(id: string): void {
    for (const timer of this.timers.get(id) ?? []) clearTimeout(timer);
    this.timers.delete(id);
  }

  private arm(id: string, token: object, afterMs: number, reason: HardStopReason): void {
    const timer = setTimeout(() => {
      if (this.stillRunning(id, token)) this.hardStop(id, reason);
    }, afterMs);
    // Never what keeps a drained child alive.
    timer.unref();
    this.timers.set(id, [...(this.timers.get(id) ?? []), timer]);
  }
}
