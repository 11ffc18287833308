import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';

import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import type { QueueStats } from '../core/backend-telemetry.interface';
import type { OutboxBacklog } from '../core/outbox-backlog';
import { inProcessWorkerUnhealthy } from '../worker/in-process/in-process-worker.messages';
import { storeHealth } from '../core/store-condition';
import {
  backendUnreachable,
  maintenanceNeverRan,
  maintenanceStale,
  optionalDependencyMissing,
  outboxParked,
  outboxStalled,
  thresholdCrossed,
} from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import { promiseTimeout } from '../utils/promise-timeout.util';
import { InProcessWorker } from '../worker/in-process/in-process.worker';
import { assessPoolHealth } from '../worker/pool/worker-health.server';
import type { HealthThresholds, ThreadmillHealthOptions } from './health-thresholds.interface';
import { aliasOption } from '../utils/alias-option.util';

type TerminusModule = typeof import('@nestjs/terminus');

/** Numbers only (`paused` is 1 or 0), so dashboards can graph them and no connection string can leak. */
type QueueDetails = Record<string, number>;

const THRESHOLD_READERS: Record<keyof HealthThresholds, (stats: QueueStats) => number> = {
  maxReady: (stats) => stats.counts.ready,
  maxRunning: (stats) => stats.counts.running,
  maxDeferred: (stats) => stats.counts.deferred,
  maxFailedInWindow: (stats) => stats.rates.failed,
};

/** How long the oldest outbox task may wait before its relay counts as stalled. */
const DEFAULT_MAX_OUTBOX_AGE_MS = 60_000;

/** Thresholds a paused queue is not held to: its backlog grows by design until it is resumed. */
const PAUSE_EXEMPT: ReadonlySet<keyof HealthThresholds> = new Set(['maxReady']);

/**
 * A `@nestjs/terminus` health indicator for one Threadmill backend: the
 * backend answers, its store has not lost its data, its maintenance heartbeat
 * is fresh, and no queue crosses the given thresholds. Details carry every
 * queue's counts, rates and whether it is paused; a paused queue is not a
 * fault (and its backlog is not held to `maxReady`). `warnings` lists what
 * makes it degraded while up (a store that keeps nothing on disk).
 *
 * `@nestjs/terminus` is an optional peer dependency: it is loaded on the
 * first check, so apps that never check health do not need it.
 *
 * @example
 * ```ts
 * @Get('health')
 * @HealthCheck()
 * check() {
 *   return this.health.check([() => this.threadmill.isHealthy('threadmill', { thresholds: { maxReady: 10_000 } })]);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class ThreadmillHealthIndicator {
  private indicators?: HealthIndicatorService;

  constructor(private readonly moduleRef: ModuleRef) {}

  /**
   * @param key the key of this check in the health response.
   * @param options backend alias, timeouts and thresholds.
   */
  async isHealthy(
    key = 'threadmill',
    options: ThreadmillHealthOptions = {},
  ): Promise<HealthIndicatorResult> {
    const registry = this.moduleRef.get(BackendRegistry, { strict: false });
    const alias = aliasOption(options, 'ThreadmillHealth.isHealthy') ?? registry.defaultAlias;
    const session = this.indicatorService().check(key);
    const backend = registry.get(alias);
    const timeoutMs = options.timeoutMs ?? 1000;
    const maxHeartbeatAgeMs =
      options.maxHeartbeatAgeMs ?? Math.max(3 * backend.maintenanceIntervalMs, 3000);

    let heartbeat: Date | null;
    let queues: Record<string, QueueStats>;
    let pausedQueues: string[];
    let outbox: OutboxBacklog | null;
    try {
      [heartbeat, { queues }, pausedQueues, outbox] = await promiseTimeout(
        Promise.all([
          backend.ping().then(() => backend.reads.maintenanceHeartbeat()),
          backend.reads.telemetry(options.windowMs ?? 60_000),
          backend.control.pausedQueues(),
          backend.reads.outboxBacklog?.() ?? null,
        ]),
        timeoutMs,
        `Backend "${alias}"`,
      );
    } catch (error) {
      return session.down({
        backend: alias,
        message: backendUnreachable(alias, error instanceof Error ? error.message : String(error)),
      });
    }

    const paused = new Set(pausedQueues);
    const heartbeatAgeMs =
      heartbeat === null ? null : Math.max(0, Date.now() - heartbeat.getTime());
    // As the backend found its store on reaching it for the calls above: no round trip.
    const store = storeHealth(alias, backend.storeCondition?.() ?? null);
    const details = {
      backend: alias,
      heartbeatAgeMs,
      warnings: store.warnings,
      queues: Object.fromEntries(
        Object.entries(queues).map(([queue, stats]) => [
          queue,
          this.queueDetails(stats, paused.has(queue)),
        ]),
      ),
    };

    const worker = this.inProcessWorker(alias);
    if (worker !== null) Object.assign(details, { inProcessWorker: worker.details });
    const problems: string[] = [...store.down, ...(worker?.problems ?? [])];
    if (outbox !== null) {
      const oldestAgeMs = outbox.oldestAgeMs ?? 0;
      Object.assign(details, {
        outbox: { waiting: outbox.waiting, oldestAgeMs, parked: outbox.parked },
      });
      // Set aside for good: no restart moves them, so a warning, not down.
      if (outbox.parked > 0)
        details.warnings = [...details.warnings, outboxParked(alias, outbox.parked)];
      const limitMs = options.maxOutboxAgeMs ?? DEFAULT_MAX_OUTBOX_AGE_MS;
      if (oldestAgeMs > limitMs) problems.push(outboxStalled(alias, oldestAgeMs, limitMs));
    }
    if (options.requireMaintenance !== false) {
      if (heartbeatAgeMs === null) problems.push(maintenanceNeverRan(alias));
      else if (heartbeatAgeMs > maxHeartbeatAgeMs)
        problems.push(maintenanceStale(alias, heartbeatAgeMs, maxHeartbeatAgeMs));
    }
    for (const [queue, stats] of Object.entries(queues)) {
      for (const [threshold, read] of Object.entries(THRESHOLD_READERS)) {
        const name = threshold as keyof HealthThresholds;
        if (paused.has(queue) && PAUSE_EXEMPT.has(name)) continue;
        const limit = options.thresholds?.[name];
        if (limit !== undefined && read(stats) > limit) {
          problems.push(thresholdCrossed(queue, threshold, read(stats), limit));
        }
      }
    }

    return problems.length === 0
      ? session.up(details)
      : session.down({ ...details, message: problems.join(' ') });
  }

  /**
   * The in-process worker of this app, when it works for `alias`, judged as a
   * pool's liveness probe judges a pool (the store's own problems are reported once, above).
   */
  private inProcessWorker(
    alias: string,
  ): { details: Record<string, number>; problems: string[] } | null {
    const worker = this.moduleRef.get(InProcessWorker, { strict: false });
    const health = worker.alias === alias ? worker.health : null;
    if (health === null) return null;
    const report = assessPoolHealth({ ...health, store: { down: [], warnings: [] } });
    return {
      details: {
        up: report.status === 'up' ? 1 : 0,
        slotsAlive: report.childrenAlive,
        done: report.done,
        failed: report.failed,
        ...(report.maintenancePassAgeMs !== null && {
          maintenancePassAgeMs: report.maintenancePassAgeMs,
        }),
      },
      problems: report.reasons.map((reason) => inProcessWorkerUnhealthy(reason)),
    };
  }

  private queueDetails(stats: QueueStats, paused: boolean): QueueDetails {
    return {
      ...stats.counts,
      paused: paused ? 1 : 0,
      ingress: stats.rates.ingress,
      egress: stats.rates.egress,
      failedInWindow: stats.rates.failed,
      windowMs: stats.rates.intervalMs,
    };
  }

  private indicatorService(): HealthIndicatorService {
    // HealthIndicatorService only builds result objects, so our own instance
    // is as good as TerminusModule's and needs no import of it.
    this.indicators ??= new (loadTerminus().HealthIndicatorService)();
    return this.indicators;
  }
}

function loadTerminus(): TerminusModule {
  try {
    // Required lazily: @nestjs/terminus is an optional peer dependency.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@nestjs/terminus') as TerminusModule;
  } catch (error) {
    throw new OptionalDependencyMissingError(
      optionalDependencyMissing('ThreadmillHealthIndicator', '@nestjs/terminus'),
      { cause: error },
    );
  }
}
