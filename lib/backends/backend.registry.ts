import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { UnknownBackendError } from '../core/errors/unknown-backend.error';
import type { FinishedTasksListener } from '../core/finished-task-feed';
import type { TaskBackend } from '../core/task-backend.interface';
import type { FeedUnsubscribe } from '../core/task-feed-fanout';
import type { TaskRecord } from '../core/task-record.interface';
import { DEFAULT_BACKEND_ALIAS } from '../core/threadmill.constants';
import { unknownBackend } from '../core/threadmill.messages';
import type { FinishedRecordSource } from '../core/wait-for-finished';

/**
 * Every configured backend by alias. Built by the module from the options (so
 * it works for `forRootAsync`, whose aliases are only known once the factory
 * ran), and the one place that closes them on application shutdown.
 *
 * @example
 * ```ts
 * constructor(private readonly backends: BackendRegistry) {}
 * const telemetry = await this.backends.get('emails').telemetry(60_000);
 * ```
 * @publicApi
 */
export class BackendRegistry implements OnApplicationShutdown {
  private readonly logger = new Logger(BackendRegistry.name);
  private readonly backends: ReadonlyMap<string, TaskBackend>;
  /** One source per alias: a worker asks for one with every task it runs. */
  private readonly sources = new Map<string, FinishedRecordSource>();

  constructor(backends: Iterable<TaskBackend>) {
    this.backends = new Map([...backends].map((backend) => [backend.alias, backend]));
  }

  get aliases(): string[] {
    return [...this.backends.keys()];
  }

  /**
   * The alias used where none is named (a task without `backend`, a command
   * without `--alias`): the only one configured, else `default`.
   */
  get defaultAlias(): string {
    return this.backends.size === 1 ? this.aliases[0] : DEFAULT_BACKEND_ALIAS;
  }

  all(): TaskBackend[] {
    return [...this.backends.values()];
  }

  find(alias: string): TaskBackend | undefined {
    return this.backends.get(alias);
  }

  /**
   * The backend of `alias`.
   *
   * @param alias a configured alias.
   * @throws UnknownBackendError when no backend has this alias.
   */
  get(alias: string): TaskBackend {
    const backend = this.backends.get(alias);
    if (!backend) throw new UnknownBackendError(unknownBackend(alias, this.aliases));
    return backend;
  }

  /** @internal Where a TaskResult of this alias refreshes from. */
  sourceFor(alias: string): FinishedRecordSource {
    let source = this.sources.get(alias);
    if (source === undefined) {
      source = {
        alias,
        getResult: (id: string): Promise<TaskRecord> => this.get(alias).tasks.getResult(id),
        subscribeFinished: (listener: FinishedTasksListener): Promise<FeedUnsubscribe> =>
          this.get(alias).feeds.subscribeFinished(listener),
      };
      this.sources.set(alias, source);
    }
    return source;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.closeAll();
  }

  /** Closes every backend; one failing close is logged and does not keep the others open. */
  async closeAll(): Promise<void> {
    const outcomes = await Promise.allSettled(this.all().map((backend) => backend.close()));
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        const reason: unknown = outcome.reason;
        this.logger.error(
          `Closing backend "${this.all()[index].alias}" failed`,
          reason instanceof Error ? reason.stack : String(reason),
        );
      }
    });
  }
}
