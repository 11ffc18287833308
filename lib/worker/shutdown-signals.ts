/** Signals that ask a pool (or one child) to stop, as Gunicorn honours them. */
export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** Where signals come from: `process`, or an EventEmitter in unit tests. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/** What a stop request asks for: graceful finishes held tasks; urgent releases them and exits. */
export interface ShutdownRequest {
  readonly urgent: boolean;
  /** The signal name, or what else asked (the parent, a lost IPC channel). */
  readonly cause: string;
}

/**
 * How long after a graceful stop began a signal still counts as that same
 * stop. One Ctrl-C often arrives twice: from the terminal, to the whole
 * process group, and forwarded by a wrapper such as `nest start`.
 */
export const SAME_STOP_WINDOW_MS = 1000;

/**
 * Turns SIGTERM/SIGINT/SIGHUP into a two-step shutdown: the first asks for a
 * graceful stop, one arriving SAME_STOP_WINDOW_MS or more later for an
 * urgent stop; one in between is the same graceful stop. Stop requests from
 * other sources (the parent's IPC message) go through `request`, so a Ctrl-C
 * that reaches a child both directly and via its parent counts once, not
 * twice. While listening, the signals no longer kill the process by default.
 */
export class ShutdownSignals {
  private level: 'running' | 'graceful' | 'urgent' = 'running';
  /** When the graceful stop began (ms, `now`'s clock). */
  private gracefulSince = 0;
  private listening = false;
  private readonly handler = (signal: NodeJS.Signals): void => {
    const repeated =
      this.level === 'graceful' && this.now() - this.gracefulSince < SAME_STOP_WINDOW_MS;
    if (!repeated) this.request({ urgent: this.level !== 'running', cause: signal });
  };

  constructor(
    private readonly onStop: (request: ShutdownRequest) => void,
    private readonly source: SignalSource = process,
    private readonly now: () => number = Date.now,
  ) {}

  get stopping(): boolean {
    return this.level !== 'running';
  }

  get urgent(): boolean {
    return this.level === 'urgent';
  }

  listen(): this {
    if (!this.listening) {
      for (const signal of SHUTDOWN_SIGNALS) this.source.on(signal, this.handler);
      this.listening = true;
    }
    return this;
  }

  /** Raise the stop level; a request that asks for no more than the current level is ignored. */
  request(request: ShutdownRequest): void {
    const next = request.urgent ? 'urgent' : 'graceful';
    if (this.level === next || this.level === 'urgent') return;
    this.level = next;
    if (next === 'graceful') this.gracefulSince = this.now();
    this.onStop(request);
  }

  dispose(): void {
    if (!this.listening) return;
    for (const signal of SHUTDOWN_SIGNALS) this.source.off(signal, this.handler);
    this.listening = false;
  }
}
