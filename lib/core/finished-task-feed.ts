import type { TaskResultStatus } from './task-result-status.enum';

/**
 * One task stored final (SUCCESSFUL, FAILED or CANCELLED), as a backend's
 * feed reports it: enough to filter on before reading the whole result.
 *
 * @publicApi
 */
export interface FinishedTask {
  readonly id: string;
  /** The task's stable name, e.g. `'MailTasks.sendWelcome'`. */
  readonly name: string;
  readonly queue: string;
  readonly status: TaskResultStatus;
}

/**
 * Receives the tasks one store write finished (a batch, never empty).
 *
 * @publicApi
 */
export type FinishedTasksListener = (tasks: readonly FinishedTask[]) => void;

/**
 * Ends one subscription; resolves once nothing more is delivered to it.
 *
 * @publicApi
 */
export type FeedUnsubscribe = () => Promise<void>;

/**
 * How one backend carries finished tasks between processes (Redis pub/sub,
 * a SQLite cursor, an in-process call). Opened for the first listener,
 * closed after the last, so an alias nobody listens to costs nothing.
 */
export interface FinishedTaskTransport {
  /** Resolves once every task finished from now on reaches `deliver`. */
  open(deliver: FinishedTasksListener): Promise<void>;
  /** Stops delivering; what it holds (a connection) may be kept for the next open. */
  close(): Promise<void>;
  /** Releases everything for good (the backend closes); `close` when absent. */
  end?(): Promise<void>;
}

/**
 * The listeners of one backend's feed of finished tasks, sharing one
 * transport: the rule every backend follows, written once. Opening and
 * closing run one at a time, so a subscribe racing the last unsubscribe
 * never leaves the transport closed under a listener.
 */
export class FinishedTaskFanout {
  private readonly listeners = new Set<FinishedTasksListener>();
  private open = false;
  private closed = false;
  private transitions: Promise<void> = Promise.resolve();

  /**
   * @param transport the backend's carrier.
   * @param logger told when a listener throws (the backend's Nest Logger); the others still receive the batch.
   */
  constructor(
    private readonly transport: FinishedTaskTransport,
    private readonly logger: { error(message: string, stack?: string): void },
  ) {}

  /** Resolves once `listener` receives every task finished from then on. */
  async subscribe(listener: FinishedTasksListener): Promise<FeedUnsubscribe> {
    this.listeners.add(listener);
    try {
      await this.settle();
    } catch (error) {
      this.listeners.delete(listener);
      throw error;
    }
    let subscribed = true;
    return async () => {
      if (!subscribed) return;
      subscribed = false;
      this.listeners.delete(listener);
      await this.settle();
    };
  }

  /** Hands one batch to every listener (a copy: a listener may unsubscribe while it runs). */
  deliver(tasks: readonly FinishedTask[]): void {
    if (tasks.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(tasks);
      } catch (error) {
        this.logger.error(
          'A listener of finished tasks failed',
          error instanceof Error ? error.stack : String(error),
        );
      }
    }
  }

  /** Ends the transport for good (the backend closes); its subscribe refuses afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.settle();
    await this.transport.end?.();
  }

  /** Opens or closes the transport to match whether anyone listens, after any transition under way. */
  private settle(): Promise<void> {
    const next = this.transitions.then(async () => {
      const wanted = this.listeners.size > 0 && !this.closed;
      if (wanted === this.open) return;
      if (wanted) {
        await this.transport.open((tasks) => this.deliver(tasks));
        this.open = true;
      } else {
        this.open = false;
        await this.transport.close();
      }
    });
    // A failed open must not block the transitions after it.
    this.transitions = next.catch(() => undefined);
    return next;
  }
}
