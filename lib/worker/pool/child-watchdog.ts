/** The watchdog's settings: one pool's. */
export interface ChildWatchdogOptions {
  /**
   * How long a child's event loop may stay silent before the child counts as
   * wedged, unless a task it runs declared longer (`blockingMs`).
   */
  readonly timeoutMs: number;
  /** While the pool stops: how long a silent child is waited for (a declared bound still counts). */
  readonly stopGraceMs: number;
  /** Never wait past this, whatever a task declared: the lease, after which its tasks are failed anyway. */
  readonly ceilingMs: number;
  /** Period of the check. */
  readonly checkEveryMs: number;
  /** A child passed its bound: `silentForMs` since its last beat, `boundMs` the bound it passed. */
  readonly onWedged: (pid: number, silentForMs: number, boundMs: number) => void;
  readonly now?: () => number;
}

interface Watched {
  lastBeatAt: number;
  blockingMs: number;
  wedged: boolean;
}

/**
 * The pool's side of the children's liveness beats (LivenessBeat): which
 * child's event loop stopped answering. A wedged child cannot take signals,
 * finish its tasks or send a stop reply, so the pool must decide for it: the
 * watchdog reports it once, and the pool kills it and recovers its tasks.
 *
 * @internal
 */
export class ChildWatchdog {
  private readonly children = new Map<number, Watched>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly options: ChildWatchdogOptions) {}

  /** Children past their bound that have not exited yet. */
  get wedged(): number {
    let count = 0;
    for (const child of this.children.values()) if (child.wedged) count++;
    return count;
  }

  start(): void {
    this.timer = setInterval(() => this.check(), this.options.checkEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** From now on the pool is stopping: silent children are waited for the stop grace only. */
  poolStopping(): void {
    this.stopping = true;
    this.check();
  }

  /** A child answered (it is watched from its first beat on). */
  beat(pid: number, blockingMs: number): void {
    const child = this.children.get(pid);
    if (child) {
      child.lastBeatAt = this.now();
      child.blockingMs = blockingMs;
    } else {
      this.children.set(pid, { lastBeatAt: this.now(), blockingMs, wedged: false });
    }
  }

  /** A child exited: nothing more to watch. */
  forget(pid: number): void {
    this.children.delete(pid);
  }

  /** The silence after which `child` counts as wedged. */
  private boundOf(child: Watched): number {
    const { timeoutMs, stopGraceMs, ceilingMs } = this.options;
    const base = this.stopping ? Math.min(timeoutMs, stopGraceMs) : timeoutMs;
    return Math.min(Math.max(base, child.blockingMs), ceilingMs);
  }

  private check(): void {
    const now = this.now();
    for (const [pid, child] of this.children) {
      if (child.wedged) continue;
      const silentForMs = now - child.lastBeatAt;
      const boundMs = this.boundOf(child);
      if (silentForMs <= boundMs) continue;
      child.wedged = true;
      this.options.onWedged(pid, silentForMs, boundMs);
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
