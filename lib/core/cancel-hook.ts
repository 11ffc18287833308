/**
 * How whoever holds a running attempt asks it to stop on a cancel request:
 * a plain callback in place of an AbortSignal, because making an AbortSignal
 * costs microseconds, and a pool child starts tens of thousands of attempts
 * a second. The attempt makes its own signal only when its code reads it.
 *
 * @publicApi
 */
export class CancelHook {
  private listener: (() => void) | null = null;
  private fired = false;

  /** Whether a cancel was requested. */
  get requested(): boolean {
    return this.fired;
  }

  /** Requests the cancel; the attempt's listener hears it now, or as it listens. */
  request(): void {
    if (this.fired) return;
    this.fired = true;
    this.listener?.();
  }

  /** @internal The attempt's one listener; called at once when the cancel came first. */
  listen(listener: () => void): void {
    this.listener = listener;
    if (this.fired) listener();
  }

  /** @internal */
  unlisten(): void {
    this.listener = null;
  }
}
