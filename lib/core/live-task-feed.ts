import { TaskFeedFanout, type TaskFeedTransport } from './task-feed-fanout';

/**
 * The events of a live task that a backend carries between processes
 * (`finished` has a feed of its own).
 *
 * @publicApi
 */
export type LiveTaskEventName = 'enqueued' | 'started' | 'progressed';

/** Every LiveTaskEventName, for checks at run time. */
export const LIVE_TASK_EVENTS: readonly LiveTaskEventName[] = ['enqueued', 'started', 'progressed'];

/**
 * One event of a live task, as a backend's feed reports it: enough to
 * filter on before reading the whole result.
 *
 * @publicApi
 */
export interface LiveTaskEvent {
  readonly event: LiveTaskEventName;
  readonly id: string;
  readonly queue: string;
  /** The task's stable name; null where the store could not tell it without decoding the task. */
  readonly name: string | null;
  /** For `progressed`: the progress as stored (storedProgress: `[attempt, value]` JSON). */
  readonly progress?: string;
}

/**
 * Receives the events one store write made (a batch, never empty).
 *
 * @publicApi
 */
export type LiveTaskEventsListener = (events: readonly LiveTaskEvent[]) => void;

/** How one backend carries live task events between processes (see TaskFeedTransport). */
export type LiveTaskTransport = TaskFeedTransport<LiveTaskEvent>;

/** The listeners of one backend's feed of live task events, sharing one transport. */
export class LiveTaskFanout extends TaskFeedFanout<LiveTaskEvent> {
  constructor(
    transport: LiveTaskTransport,
    logger: { error(message: string, stack?: string): void },
  ) {
    super(transport, logger, 'live task events');
  }
}
