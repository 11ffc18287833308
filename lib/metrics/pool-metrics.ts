import type { LoggerService } from '@nestjs/common';
import type { Registry } from 'prom-client';

import type { TaskBackend } from '../core/task-backend.interface';
import { ChildrenMetrics } from './children-metrics';
import { DEFAULT_SCRAPE_INTERVAL_MS } from './metrics.constants';
import type { MetricsSnapshot, PromClient } from './prom-client.loader';
import { StoreGauges } from './store-gauges';

/** A rendered scrape: the exposition text and its content type. */
export interface MetricsPage {
  readonly contentType: string;
  readonly body: string;
}

export interface PoolMetricsDeps {
  readonly backend: TaskBackend;
  /** The pool's id: it holds the store gauges role under it. */
  readonly poolId: string;
  /** Children booted and working now. */
  readonly childrenAlive: () => number;
  readonly logger: LoggerService;
  readonly scrapeIntervalMs?: number;
}

/**
 * The `/metrics` of a worker pool's main process: the children's task
 * metrics (their latest snapshots plus the retired total, see
 * ChildrenMetrics) summed with prom-client's AggregatorRegistry, and the
 * main process's own registry: `threadmill_children_alive` and, while this
 * pool holds the role, the store gauges (see StoreGauges).
 *
 * @internal
 */
export class PoolMetrics {
  private readonly registry: Registry;
  private readonly children: ChildrenMetrics;

  constructor(
    private readonly prom: PromClient,
    deps: PoolMetricsDeps,
  ) {
    this.registry = new prom.Registry();
    this.children = new ChildrenMetrics(prom);
    const registers = [this.registry];
    new prom.Gauge({
      name: 'threadmill_children_alive',
      help: 'Worker children of this pool booted and working.',
      registers,
      collect() {
        this.set(deps.childrenAlive());
      },
    });
    new StoreGauges(prom, registers, () => [deps.backend], {
      holder: deps.poolId,
      scrapeIntervalMs: deps.scrapeIntervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS,
      logger: deps.logger,
    });
  }

  /** Child `pid` sent its cumulative snapshot. */
  reported(pid: number, snapshot: MetricsSnapshot): void {
    this.children.reported(pid, snapshot);
  }

  /** Child `pid` exited: what it last reported stays counted. */
  exited(pid: number): void {
    this.children.exited(pid);
  }

  /** One scrape: every child's counts summed, and this process's gauges. */
  async render(): Promise<MetricsPage> {
    const [children, own] = await Promise.all([
      this.children.snapshots(),
      this.registry.getMetricsAsJSON() as Promise<MetricsSnapshot>,
    ]);
    const sum = this.prom.AggregatorRegistry.aggregate([...children, own]);
    return { contentType: sum.contentType, body: await sum.metrics() };
  }
}
