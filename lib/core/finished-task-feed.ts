import { TaskFeedFanout, type TaskFeedTransport } from './task-feed-fanout';
import type { TaskResultStatus } from './task-result-status.enum';

export type { FeedUnsubscribe } from './task-feed-fanout';

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

/** How one backend carries finished tasks between processes (see TaskFeedTransport). */
export type FinishedTaskTransport = TaskFeedTransport<FinishedTask>;

/** The listeners of one backend's feed of finished tasks, sharing one transport. */
export class FinishedTaskFanout extends TaskFeedFanout<FinishedTask> {
  constructor(
    transport: FinishedTaskTransport,
    logger: { error(message: string, stack?: string): void },
  ) {
    super(transport, logger, 'finished tasks');
  }
}
