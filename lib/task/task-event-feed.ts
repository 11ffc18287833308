import { Injectable, Logger } from '@nestjs/common';

import { TaskResult, type FinishedTask, type TaskBackend, type TaskRecordSource } from '../core';
import { BackendRegistry } from '../backends/backend.registry';

/** The listener of finished tasks from every process: the task's TaskResult once stored final. */
export type FinishedResultListener = (result: TaskResult) => void | Promise<void>;

/**
 * Which finished tasks a cross-process listener hears.
 *
 * @publicApi
 */
export interface TaskEventFilter {
  /** The backend alias whose tasks to hear. Default: the only one configured, else `'default'`. */
  backend?: string;
  /** Only tasks of this stable name, e.g. `'MailTasks.sendWelcome'`. Default: all. */
  task?: string;
}

/**
 * Finished tasks from every process that shares a backend, as TaskResults:
 * the backend's feed says which tasks finished, and each is read once per
 * listener that wants it. A listener that throws is logged and never stops
 * the feed. What finished while nobody was subscribed is not replayed.
 *
 * @internal
 */
@Injectable()
export class TaskEventFeed {
  private readonly logger = new Logger('TaskEvents');

  constructor(private readonly backends: BackendRegistry) {}

  /**
   * Resolves once `listener` hears every task finished from then on.
   *
   * @returns a function that unsubscribes.
   * @throws UnknownBackendError when no backend has the alias.
   * @throws BackendUnavailableError when the store cannot be reached to subscribe.
   */
  async subscribe(
    listener: FinishedResultListener,
    filter: TaskEventFilter = {},
  ): Promise<() => Promise<void>> {
    const alias = filter.backend ?? this.backends.defaultAlias;
    const backend = this.backends.get(alias);
    const source = this.backends.sourceFor(alias);
    return backend.subscribeFinished((tasks) => {
      for (const task of tasks) {
        if (filter.task !== undefined && task.name !== filter.task) continue;
        void this.deliver(backend, source, task, listener);
      }
    });
  }

  private async deliver(
    backend: TaskBackend,
    source: TaskRecordSource,
    task: FinishedTask,
    listener: FinishedResultListener,
  ): Promise<void> {
    let result: TaskResult;
    try {
      result = new TaskResult(await backend.getResult(task.id), source);
    } catch (error) {
      // Removed or expired in between, or the store is down: there is nothing to hand over.
      this.logger.warn(
        `Could not read finished task "${task.name}" (${task.id}) for a listener: ${String(error)}`,
      );
      return;
    }
    try {
      await listener(result);
    } catch (error) {
      this.logger.error(
        `A "finished" listener failed for task "${task.name}" (${task.id})`,
        error instanceof Error ? error.stack : String(error),
      );
    }
  }
}
