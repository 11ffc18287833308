import type { EventStream } from '../../core/event-stream';

/**
 * The pool's counts of finished tasks (what its children report, and what
 * crash recovery failed) and its periodic summary on the event stream (the
 * log line): tasks done, failed, the rate since the last one. An idle pool
 * stays quiet.
 *
 * @internal
 */
export class PoolSummary {
  private done = 0;
  private failed = 0;
  private summarizedDone = 0;
  private summarizedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly stream: EventStream,
    private readonly periodMs: number,
    private readonly children: () => number,
  ) {}

  get counts(): { done: number; failed: number } {
    return { done: this.done, failed: this.failed };
  }

  count(done: number, failed: number): void {
    this.done += done;
    this.failed += failed;
  }

  start(): void {
    this.timer = setInterval(() => this.summarize(), this.periodMs);
  }

  /** Stops the line, after a last one for what the last period did. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.summarize();
  }

  private summarize(): void {
    const now = Date.now();
    const delta = this.done - this.summarizedDone;
    const rate = (delta * 1000) / Math.max(1, now - this.summarizedAt);
    this.summarizedDone = this.done;
    this.summarizedAt = now;
    if (delta === 0) return;
    this.stream.emit('poolSummary', {
      done: this.done,
      failed: this.failed,
      ratePerSecond: rate,
      children: this.children(),
    });
  }
}
