import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Counter, Registry } from 'prom-client';

import { EventStream } from '../core/event-stream';
import { MetricsNotEnabledError } from '../core/errors/metrics-not-enabled.error';
import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import type { ThreadmillMetricsOptions } from '../core/metrics-options.interface';
import { metricsNotEnabled } from './metrics.messages';
import { optionalDependencyMissing } from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import { THREADMILL_MODULE_OPTIONS } from '../threadmill.module-definition';
import type { ThreadmillModuleOptions } from '../threadmill-module-options.interface';
import { DEFAULT_SCRAPE_INTERVAL_MS } from './metrics.constants';
import { loadPromClient, type PromClient } from './prom-client.loader';
import { STORE_GAUGE_NAMES, StoreGauges } from './store-gauges';
import { TASK_METRIC_NAMES, TaskMetrics } from './task-metrics';

const ENQUEUED = 'threadmill_tasks_enqueued_total';

/**
 * The Prometheus metrics of the app process (the one that enqueues), on with
 * the `metrics` option of ThreadmillModule: `threadmill_tasks_enqueued_total`
 * by task and queue, and the store gauges (`threadmill_queue_tasks`,
 * `threadmill_queue_oldest_waiting_seconds`, and the outbox's where a backend
 * has one) of every configured backend,
 * shown by one process of the store at a time, pools included (the store
 * gauges role, see docs/metrics.md). The task counters and histograms come
 * from the worker pool's own `/metrics`; with the in-process worker on, this
 * process runs tasks too, and they join these metrics.
 *
 * prom-client is an optional peer dependency, loaded only when metrics are on.
 *
 * @example
 * ```ts
 * @Controller()
 * export class MetricsController {
 *   constructor(private readonly threadmillMetrics: ThreadmillMetrics) {}
 *
 *   @Get('metrics')
 *   @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
 *   metrics(): Promise<string> {
 *     return this.threadmillMetrics.metrics();
 *   }
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class ThreadmillMetrics implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ThreadmillMetrics.name);
  private on: {
    registry: Registry;
    own: boolean;
    stop: () => void;
    prom: PromClient;
    tasks?: TaskMetrics;
  } | null = null;

  constructor(
    @Inject(THREADMILL_MODULE_OPTIONS) private readonly options: ThreadmillModuleOptions,
    private readonly backends: BackendRegistry,
    private readonly stream: EventStream,
  ) {}

  /** Whether the `metrics` option turned them on. */
  get enabled(): boolean {
    return this.on !== null;
  }

  /** The content type of `metrics()`'s text (Prometheus text format). */
  get contentType(): string {
    return this.registry().contentType;
  }

  /**
   * The exposition text of the registry the metrics are in: their own, or the
   * `registry` given (then with everything else registered there).
   *
   * @throws MetricsNotEnabledError when the `metrics` option is not set.
   */
  metrics(): Promise<string> {
    return this.registry().metrics();
  }

  /**
   * Registers the metrics when the `metrics` option is set.
   *
   * @throws OptionalDependencyMissingError when prom-client is not installed.
   */
  onModuleInit(): void {
    const setting = this.options.metrics;
    if (!setting) return;
    const settings: ThreadmillMetricsOptions = setting === true ? {} : setting;
    const prom = loadPromClient();
    if (prom === null) {
      throw new OptionalDependencyMissingError(
        optionalDependencyMissing('The `metrics` option of ThreadmillModule', 'prom-client'),
      );
    }
    const given = settings.registry as Registry | undefined;
    const registry = given ?? new prom.Registry();
    const registers = [registry];
    const enqueued: Counter<'task' | 'queue'> = new prom.Counter({
      name: ENQUEUED,
      help: 'Tasks this process enqueued (stored new), by task and queue.',
      labelNames: ['task', 'queue'],
      registers,
    });
    new StoreGauges(prom, registers, () => this.backends.all(), {
      holder: `app.${hostname()}.${process.pid}.${randomBytes(4).toString('hex')}`,
      scrapeIntervalMs: settings.scrapeIntervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS,
      logger: this.logger,
    });
    const stop = this.stream.on('taskEnqueued', ({ record }) => {
      enqueued.inc({ task: record.task.name, queue: record.task.queue });
    });
    this.on = { registry, own: given === undefined, stop, prom };
  }

  /**
   * The task metrics of the in-process worker (what a pool's `/metrics`
   * shows), in this registry, recorded from this process's event stream
   * until shutdown; what the stream does not carry, the worker's failed
   * store calls, it reports to the returned hook. Null when the `metrics`
   * option is off. (Typed without prom-client: published declarations must
   * compile without the optional peer.)
   *
   * @internal
   */
  recordWorkerTasks(): { storeFailed(): void } | null {
    const on = this.on;
    if (on === null) return null;
    if (on.tasks === undefined) {
      const tasks = (on.tasks = new TaskMetrics(on.prom, on.registry));
      const stopEnqueued = on.stop;
      const stopTasks = tasks.listen(this.stream);
      on.stop = () => {
        stopEnqueued();
        stopTasks();
      };
    }
    return on.tasks;
  }

  /** Stops counting, and takes its metrics out of a registry it was given (which outlives the app). */
  onApplicationShutdown(): void {
    const on = this.on;
    if (on === null) return;
    this.on = null;
    on.stop();
    if (on.own) return;
    const tasks = on.tasks ? Object.values(TASK_METRIC_NAMES) : [];
    for (const name of [ENQUEUED, ...STORE_GAUGE_NAMES, ...tasks])
      on.registry.removeSingleMetric(name);
  }

  private registry(): Registry {
    if (this.on === null) throw new MetricsNotEnabledError(metricsNotEnabled());
    return this.on.registry;
  }
}
