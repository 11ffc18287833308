import { streamListenerFailed } from './event-stream.messages';
import type { StreamEventKind, StreamEventMap, StreamListener } from './stream-events.interface';

/** Where the stream says a listener failed (a Nest Logger in the module). */
export interface StreamErrorLogger {
  error(message: string, stack?: string): void;
}

/** How one listener listens. */
export interface StreamListenOptions {
  /**
   * Hears the kind only while this returns true (a bridge to listeners of its
   * own): while it is false the kind counts as unheard, so emitters build nothing.
   */
  readonly wanted?: () => boolean;
}

interface Entry {
  readonly listener: StreamListener<never>;
  readonly wanted: (() => boolean) | undefined;
}

type PerKind<T> = { [K in StreamEventKind]: T };

const perKind = <T>(make: () => T): PerKind<T> => ({
  taskEnqueued: make(),
  taskStarted: make(),
  taskProgressed: make(),
  taskFinished: make(),
  taskRetried: make(),
  taskUnleased: make(),
  childStarted: make(),
  childExited: make(),
  maintenanceStepFailed: make(),
  poolSummary: make(),
  dashboardAction: make(),
});

/**
 * What happens in this process, as one typed, synchronous stream: the log
 * lines, the metrics and TaskEvents listen to it instead of each emitter
 * calling each of them. An emitter asks `listens(kind)` before it builds an
 * event, so a kind nobody hears costs a counter read and nothing is
 * allocated: a worker emits several per task at tens of thousands a second.
 * A listener that throws is logged and never reaches the emitter or the
 * other listeners. One per process (a pool child, a pool's main process, an
 * app); nothing crosses processes.
 *
 * @internal
 */
export class EventStream {
  /** Replaced, never changed, on (un)subscribe: an emit walks a stable array without copying it. */
  private readonly entries: PerKind<readonly Entry[]> = perKind(() => []);
  /** Listeners of each kind that hear it always (no `wanted`). */
  private readonly always: PerKind<number> = perKind(() => 0);

  constructor(private readonly logger: StreamErrorLogger) {}

  /** Whether an event of `kind` would reach anyone now: ask before building one. */
  listens(kind: StreamEventKind): boolean {
    if (this.always[kind] > 0) return true;
    const entries = this.entries[kind];
    for (let i = 0; i < entries.length; i++) if (entries[i].wanted?.() === true) return true;
    return false;
  }

  /**
   * Calls `listener` with every event of `kind` until the returned function is called.
   *
   * @returns a function that unsubscribes (calling it again does nothing).
   */
  on<K extends StreamEventKind>(
    kind: K,
    listener: StreamListener<K>,
    options: StreamListenOptions = {},
  ): () => void {
    const entry: Entry = { listener, wanted: options.wanted };
    this.entries[kind] = [...this.entries[kind], entry];
    if (entry.wanted === undefined) this.always[kind]++;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.entries[kind] = this.entries[kind].filter((e) => e !== entry);
      if (entry.wanted === undefined) this.always[kind]--;
    };
  }

  /** Delivers `event` to the listeners of `kind`, in the order they subscribed; never throws. */
  emit<K extends StreamEventKind>(kind: K, event: StreamEventMap[K]): void {
    const entries = this.entries[kind];
    for (let i = 0; i < entries.length; i++) {
      const { listener, wanted } = entries[i];
      if (wanted !== undefined && !wanted()) continue;
      try {
        const returned: unknown = (listener as StreamListener<K>)(event);
        // Typed synchronous, but an async listener's rejection is isolated all the same.
        if (returned instanceof Promise) {
          returned.catch((error: unknown) => this.reportFailure(kind, error));
        }
      } catch (error) {
        this.reportFailure(kind, error);
      }
    }
  }

  private reportFailure(kind: StreamEventKind, error: unknown): void {
    // A listener is observability code: its failure must not fail what emitted the event.
    this.logger.error(
      streamListenerFailed(kind),
      error instanceof Error ? error.stack : String(error),
    );
  }
}
