import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { hostname } from 'node:os';

import { BackendRegistry } from '../../backends/backend.registry';
import { EventStream } from '../../core/event-stream';
import {
  inProcessWorkerFailed,
  inProcessWorkerSkipped,
  inProcessWorkerStopping,
} from './in-process-worker.messages';
import { THREADMILL_CLI_CONTEXT, WORKER_CHILD_ENV } from '../../core/threadmill.constants';
import { ThreadmillMetrics } from '../../metrics/threadmill.metrics';
import { ScheduleService } from '../../schedule/schedule.service';
import { TaskRegistry } from '../../task/task.registry';
import { THREADMILL_MODULE_OPTIONS } from '../../threadmill.module-definition';
import type { ThreadmillModuleOptions } from '../../threadmill-module-options.interface';
import type { ChildMetrics } from '../child/worker-child.deps';
import { newPoolId } from '../pool/pool-id';
import type { PoolHealth } from '../pool/worker-pool.deps';
import { ShutdownSignals } from '../shutdown-signals';
import { StreamLogListener } from '../stream-log.listener';
import { TaskRunner } from '../task-runner';
import { resolveInProcessWorker } from './in-process-worker.config';
import { InProcessPool } from './in-process-pool';

/** What runs while the in-process worker works. */
interface Running {
  readonly alias: string;
  readonly pool: InProcessPool;
  readonly done: Promise<void>;
}

/**
 * ThreadmillModule's `inProcessWorker`: once the app has bootstrapped, runs
 * an InProcessPool in the app's own process; on the app's shutdown (Nest's
 * shutdown hooks, or `app.close()`) stops it gracefully, and a second signal
 * meanwhile stops it urgently, as a pool's. It never starts in a process that
 * runs a threadmill command (the CLI boots the same module) or in a pool's
 * child, which runs slots of its own.
 *
 * @internal
 */
@Injectable()
export class InProcessWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('InProcessWorker');
  private running: Running | null = null;

  constructor(
    @Inject(THREADMILL_MODULE_OPTIONS) private readonly moduleOptions: ThreadmillModuleOptions,
    private readonly backends: BackendRegistry,
    private readonly runner: TaskRunner,
    private readonly registry: TaskRegistry,
    private readonly schedules: ScheduleService,
    private readonly stream: EventStream,
    private readonly metrics: ThreadmillMetrics,
    @Optional() @Inject(THREADMILL_CLI_CONTEXT) private readonly cli: boolean | null = null,
  ) {}

  /** The backend alias it works for, while it runs. */
  get alias(): string | null {
    return this.running?.alias ?? null;
  }

  /** Its state as a pool's liveness probe reads it, while it runs; else null. */
  get health(): PoolHealth | null {
    return this.running?.pool.health ?? null;
  }

  /**
   * Starts it when the option asks for it, in the background: the app does
   * not wait for the store.
   *
   * @throws InvalidBackendConfigError when the option names a backend or queue that is not configured.
   */
  onApplicationBootstrap(): void {
    const setting = this.moduleOptions.inProcessWorker;
    if (!setting) return;
    if (process.env[WORKER_CHILD_ENV] === '1') {
      this.logger.debug(inProcessWorkerSkipped('pool child'));
      return;
    }
    if (this.cli) {
      this.logger.debug(inProcessWorkerSkipped('command'));
      return;
    }
    const { backend, options } = resolveInProcessWorker(setting, this.backends);
    const logger = this.logger;
    const pool = new InProcessPool(options, {
      backend,
      logger,
      stream: this.stream,
      host: hostname(),
      poolId: newPoolId(),
      runTask: (record, cancel) => this.runner.run(record, cancel, options.unknownTaskGraceMs),
      schedules: this.schedules.forPool(backend, new Logger('Schedules')),
      hardStopAfterMs: (name) => this.registry.find(name)?.options.cancel?.hardStopAfterMs,
      metrics: this.childMetrics(),
    });
    const logs = new StreamLogListener(this.stream, logger);
    const stopLogging = [logs.pool(), Logger.isLevelEnabled('verbose') ? logs.tasks() : null];
    const done = pool
      .run()
      .catch((error: unknown) => this.logger.error(inProcessWorkerFailed(error)))
      .finally(() => stopLogging.forEach((stop) => stop?.()));
    this.running = { alias: backend.alias, pool, done };
  }

  /**
   * Drains before the app's providers let go of their resources: what runs
   * finishes and is stored, then the heartbeat is retired. A SIGTERM or
   * SIGINT a second or more later releases what still runs instead.
   */
  async onModuleDestroy(): Promise<void> {
    const running = this.running;
    if (running === null) return;
    const signals = new ShutdownSignals(({ urgent }) => {
      this.logger.log(inProcessWorkerStopping(urgent));
      running.pool.stop(urgent);
    });
    signals.request({ urgent: false, cause: 'application shutdown' });
    signals.listen();
    try {
      await running.done;
    } finally {
      signals.dispose();
      this.running = null;
    }
  }

  /**
   * The app's task metrics, recorded where they are read, in this process:
   * with no watcher nothing marks them changed, so no snapshot is ever asked
   * for or sent.
   */
  private childMetrics(): ChildMetrics | undefined {
    const tasks = this.metrics.recordWorkerTasks();
    if (tasks === null) return undefined;
    return {
      watch: () => undefined,
      storeFailed: () => tasks.storeFailed(),
      snapshot: () => Promise.resolve([]),
    };
  }
}
