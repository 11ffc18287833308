import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import { shown } from '../../core/shown';
import type { TaskRecord } from '../../core/task-record.interface';
import {
  backendClosed,
  invalidBackendOption,
  queueNotConfigured,
} from '../../core/threadmill.messages';

/**
 * What a call of one RedisBackend alias is checked against before it reaches
 * Redis: the alias is still open, and every queue it names is configured.
 * Shared by the backend's collaborators, so a call made from within another
 * (failing unreadable tasks, giving back leases) is checked the same way.
 *
 * @internal
 */
export class RedisCallGuard {
  private readonly queueSet: ReadonlySet<string>;
  private isClosed = false;

  constructor(
    private readonly alias: string,
    private readonly queues: readonly string[],
  ) {
    this.queueSet = new Set(queues);
  }

  /** Closing ends a wait like an abort: the caller is shutting down. */
  get closed(): boolean {
    return this.isClosed;
  }

  close(): void {
    this.isClosed = true;
  }

  assertOpen(): void {
    if (this.isClosed) throw new BackendUnavailableError(backendClosed(this.alias));
  }

  /** The record's queue; throws InvalidTaskError when the alias does not have it. */
  queueOf(record: TaskRecord): string {
    const { queue } = record.task;
    if (!this.queueSet.has(queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, queue, this.alias, this.queues),
      );
    }
    return queue;
  }

  /** Throws InvalidBackendConfigError when the alias does not have `queue`. */
  assertQueue(queue: string): void {
    if (!this.queueSet.has(queue)) {
      throw new InvalidBackendConfigError(
        invalidBackendOption(this.alias, 'queues', `does not include the queue ${shown(queue)}`),
      );
    }
  }
}
