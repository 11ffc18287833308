import type { AliasOption } from '../core/alias-option.interface';
import { Injectable, Logger } from '@nestjs/common';
import {
  LIVE_TASK_EVENTS,
  type LiveTaskEvent,
  type LiveTaskEventName,
} from '../core/live-task-feed';
import type { TaskBackend } from '../core/task-backend.interface';
import { recordWithProgress } from '../core/task-progress';
import { TaskResult, type TaskRecordSource } from '../core/task-result';
import { BackendRegistry } from '../backends/backend.registry';
import { aliasOption } from '../utils/alias-option.util';

/**
 * The events heard from every process that shares a backend: `'finished'`
 * (the backend's feed of finished tasks), `'enqueued'`, `'started'` and
 * `'progressed'` (its feed of live task events).
 *
 * @publicApi
 */
export type CrossProcessTaskEventName = 'finished' | LiveTaskEventName;

/** Every CrossProcessTaskEventName, for checks at run time. */
export const CROSS_PROCESS_TASK_EVENTS: readonly CrossProcessTaskEventName[] = [
  'finished',
  ...LIVE_TASK_EVENTS,
];

/** The listener of an event from every process: the task's TaskResult as read from the store. */
export type CrossProcessListener = (result: TaskResult) => void | Promise<void>;

/**
 * Which tasks a cross-process listener hears.
 *
 * @publicApi
 */
export interface TaskEventFilter extends AliasOption {
  /** Only tasks of this stable name, e.g. `'MailTasks.sendWelcome'`. Default: all. */
  task?: string;
}

/** What one feed item says of a task: enough to filter on and to read it. */
interface HeardTask {
  id: string;
  name: string | null;
  /** The progress as stored, for `progressed`. */
  progress?: string;
}

/**
 * Events from every process that shares a backend, as TaskResults: the
 * backend's feeds say which task did what, and each is read once per
 * listener that wants it (for `progressed`, with the progress the event
 * stored). A listener that throws is logged and never stops the feed.
 * What happened while nobody was subscribed is not replayed.
 *
 * @internal
 */
@Injectable()
export class TaskEventFeed {
  private readonly logger = new Logger('TaskEvents');

  constructor(private readonly backends: BackendRegistry) {}

  /**
   * Resolves once `listener` hears every `event` from then on.
   *
   * @returns a function that unsubscribes.
   * @throws UnknownBackendError when no backend has the alias.
   * @throws BackendUnavailableError when the store cannot be reached to subscribe.
   */
  async subscribe(
    event: CrossProcessTaskEventName,
    listener: CrossProcessListener,
    filter: TaskEventFilter = {},
  ): Promise<() => Promise<void>> {
    const alias = aliasOption(filter, 'TaskEvents') ?? this.backends.defaultAlias;
    const backend = this.backends.get(alias);
    const source = this.backends.sourceFor(alias);
    const hear = (task: HeardTask): void => {
      // A name the store could not tell is checked once the task is read.
      if (filter.task !== undefined && task.name !== null && task.name !== filter.task) return;
      void this.deliver(backend, source, event, task, filter, listener);
    };
    if (event === 'finished') {
      return backend.feeds.subscribeFinished((tasks) => tasks.forEach(hear));
    }
    return backend.feeds.subscribeLive((events: readonly LiveTaskEvent[]) => {
      for (const item of events) if (item.event === event) hear(item);
    });
  }

  private async deliver(
    backend: TaskBackend,
    source: TaskRecordSource,
    event: CrossProcessTaskEventName,
    task: HeardTask,
    filter: TaskEventFilter,
    listener: CrossProcessListener,
  ): Promise<void> {
    let result: TaskResult;
    try {
      const record = await backend.tasks.getResult(task.id);
      if (filter.task !== undefined && record.task.name !== filter.task) return;
      // The value this event stored, not a later one the read may have found.
      result = new TaskResult(recordWithProgress(record, task.progress), source);
    } catch (error) {
      // Removed or expired in between, or the store is down: there is nothing to hand over.
      this.logger.warn(
        `Could not read task "${task.name ?? '?'}" (${task.id}) for a "${event}" listener: ${String(error)}`,
      );
      return;
    }
    try {
      await listener(result);
    } catch (error) {
      this.logger.error(
        `A "${event}" listener failed for task "${result.task.name}" (${task.id})`,
        error instanceof Error ? error.stack : String(error),
      );
    }
  }
}
