import { Logger, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventStream } from './core/event-stream';
import { isExecutingBackend } from './core/task-executor.interface';
import { DEFAULT_BACKEND_ALIAS } from './core/threadmill.constants';
import { BackendRegistry } from './backends/backend.registry';
import { getBackendToken } from './backends/get-backend-token.util';
import { ThreadmillMetrics } from './metrics/threadmill.metrics';
import { DeclaredSchedules } from './schedule/declared-schedules';
import { ScheduleService } from './schedule/schedule.service';
import { TaskEventFeed } from './task/task-event-feed';
import { TaskEventListenerExplorer } from './task/task-event-listener.explorer';
import { TaskEvents } from './task/task-events';
import { TaskEventsAdapter } from './task/task-events.adapter';
import { TaskMetadataAccessor } from './task/task-metadata.accessor';
import { TaskExplorer } from './task/task.explorer';
import { TaskRegistry } from './task/task.registry';
import { TaskControlService } from './task/task-control.service';
import { TaskEnqueueService } from './task/task-enqueue.service';
import { TaskService } from './task/task.service';
import { TransactionJoin } from './task/transaction-join';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  OPTIONS_TYPE,
} from './threadmill.module-definition';
import {
  BACKEND_SERVICES,
  THREADMILL_APP_PROVIDER,
  createBackendAliasProviders,
  createBackendRegistryProvider,
} from './threadmill.providers';
import { InProcessWorker } from './worker/in-process/in-process.worker';
import { TaskRunner } from './worker/task-runner';

/**
 * `forRootAsync` options: Nest's `imports` / `inject` / `useFactory` (or
 * `useClass` / `useExisting`), `isGlobal`, and `backendAliases`: the aliases to
 * make injectable with `@InjectBackend(alias)` (default `['default']`), since
 * they are only known once the factory ran.
 *
 * @example
 * ```ts
 * ThreadmillModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({
 *     backends: { default: { backend: RedisBackend, url: config.getOrThrow('REDIS_URL') } },
 *   }),
 *   backendAliases: ['default'],
 * });
 * ```
 * @publicApi
 */
export type ThreadmillModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE & {
  backendAliases?: string[];
};

/**
 * Threadmill's Nest module: discovers `@Task` and `@OnTaskEvent` methods, provides `TaskService`,
 * `QueueService`, `ScheduleService`, `TaskEvents`, `TaskRunner`, `ThreadmillMetrics`, the `BackendRegistry` and one injectable backend
 * per alias, runs the in-process worker when `inProcessWorker` asks for it, and closes every backend on application shutdown.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     ThreadmillModule.forRoot({
 *       isGlobal: true,
 *       backends: { default: { backend: RedisBackend, url: 'redis://localhost:6379', queues: ['default', 'emails'] } },
 *     }),
 *   ],
 *   providers: [MailTasks],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  // The BackendRegistry provider comes with forRoot/forRootAsync (it needs their aliases).
  providers: [
    // One per app: every process (a pool child, a pool's main process, a web app) boots its own.
    { provide: EventStream, useFactory: () => new EventStream(new Logger(EventStream.name)) },
    TaskMetadataAccessor,
    TaskRegistry,
    TaskExplorer,
    TaskEventFeed,
    TaskEvents,
    TaskEventsAdapter,
    TaskEventListenerExplorer,
    TransactionJoin,
    TaskEnqueueService,
    TaskService,
    TaskControlService,
    TaskRunner,
    DeclaredSchedules,
    ScheduleService,
    ThreadmillMetrics,
    InProcessWorker,
  ],
  exports: [
    EventStream,
    BackendRegistry,
    TaskRegistry,
    TaskEvents,
    TaskService,
    TaskControlService,
    TaskRunner,
    ScheduleService,
    ThreadmillMetrics,
    InProcessWorker,
  ],
})
export class ThreadmillModule extends ConfigurableModuleClass implements OnModuleInit {
  constructor(
    private readonly backends: BackendRegistry,
    private readonly runner: TaskRunner,
    private readonly stream: EventStream,
  ) {
    super();
  }

  /**
   * Configures the backends from a static object.
   *
   * @param options `backends` by alias, and `isGlobal`.
   * @throws InvalidBackendConfigError at bootstrap, naming the alias and the option.
   */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return ThreadmillModule.withBackendTokens(
      super.forRoot(options),
      Object.keys(options.backends ?? {}),
    );
  }

  /**
   * Configures the backends from a factory (e.g. with `ConfigService`).
   *
   * @param options Nest's async options, `isGlobal` and `backendAliases` (default `['default']`).
   * @throws InvalidBackendConfigError at bootstrap, naming the alias and the option.
   */
  static forRootAsync(options: ThreadmillModuleAsyncOptions): DynamicModule {
    const { backendAliases = [DEFAULT_BACKEND_ALIAS], ...asyncOptions } = options;
    return ThreadmillModule.withBackendTokens(super.forRootAsync(asyncOptions), backendAliases);
  }

  private static withBackendTokens(
    definition: DynamicModule,
    aliases: readonly string[],
  ): DynamicModule {
    return {
      ...definition,
      providers: [
        ...(definition.providers ?? []),
        createBackendRegistryProvider(aliases),
        THREADMILL_APP_PROVIDER,
        ...createBackendAliasProviders(aliases),
        ...BACKEND_SERVICES,
      ],
      exports: [
        ...(definition.exports ?? []),
        ...aliases.map((alias) => getBackendToken(alias)),
        ...BACKEND_SERVICES,
      ],
    };
  }

  /** Gives immediate backends what runs a task at enqueue, before anyone can enqueue. */
  onModuleInit(): void {
    for (const backend of this.backends.all()) {
      if (!isExecutingBackend(backend)) continue;
      const source = this.backends.sourceFor(backend.alias);
      backend.setExecutor((record) => {
        if (this.stream.listens('taskEnqueued')) {
          this.stream.emit('taskEnqueued', { record, source });
        }
        return this.runner.run(record);
      });
    }
  }
}
