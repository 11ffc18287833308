import type { TaskRecord } from '../../core/task-record.interface';
import type { ChildMessage } from '../worker-ipc';

/**
 * A child's sign of life to its pool: an `alive` message every `everyMs`,
 * sent from a timer, so it stops exactly when a task blocks the event loop
 * (a `while (true) {}`, or long synchronous work). With it goes the longest
 * bound a running task declared (`@Task({ blockingMs })`, else its
 * `timeoutMs`), so the pool's
 * watchdog gives such a task its time and no more. A task that raises the
 * bound is announced before it starts, while the loop can still send.
 *
 * @internal
 */
export class LivenessBeat {
  private timer: NodeJS.Timeout | null = null;
  /** How many running tasks declared each bound. */
  private readonly declared = new Map<number, number>();
  private reported = 0;

  constructor(
    private readonly send: (message: ChildMessage) => void,
    private readonly everyMs: number,
    /** The bound a task declares (its `blockingMs`, else its `timeoutMs`), by task name. */
    private readonly blockingMsOf: (taskName: string) => number | undefined,
  ) {}

  /** The longest bound a running task declared; 0 for none. */
  get blockingMs(): number {
    let longest = 0;
    for (const bound of this.declared.keys()) longest = Math.max(longest, bound);
    return longest;
  }

  start(): void {
    this.beat();
    // Unref'd: a beat must never be what keeps a finished child alive.
    this.timer = setInterval(() => this.beat(), this.everyMs).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A task starts; when its declared bound raises the child's, that is said at once. */
  started(record: TaskRecord): void {
    const blockingMs = this.blockingMsOf(record.task.name);
    if (blockingMs === undefined) return;
    this.declared.set(blockingMs, (this.declared.get(blockingMs) ?? 0) + 1);
    if (blockingMs > this.reported) this.beat();
  }

  /** A task is no longer running. */
  ended(record: TaskRecord): void {
    const blockingMs = this.blockingMsOf(record.task.name);
    if (blockingMs === undefined) return;
    const count = (this.declared.get(blockingMs) ?? 0) - 1;
    if (count > 0) this.declared.set(blockingMs, count);
    else this.declared.delete(blockingMs);
  }

  private beat(): void {
    this.reported = this.blockingMs;
    this.send({ kind: 'alive', blockingMs: this.reported });
  }
}
