import { Logger } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { metricsNeedPromClient, metricsRenderFailed } from '../../metrics/metrics.messages';
import { workerHealthListening } from '../worker.messages';
import type { MetricsPage } from '../../metrics/pool-metrics';
import type { PoolHealth } from './worker-pool.deps';

/** The pool's metrics for `GET /metrics`: null when prom-client is not installed (501). */
export type PoolMetricsSource = { render(): Promise<MetricsPage> } | null;

/** A maintenance pass older than this many intervals means the main process is stuck. */
const MAINTENANCE_INTERVALS_ALLOWED = 3;
/** ...but never less than this, so a single slow pass on a short interval does not flap. */
const MIN_MAINTENANCE_AGE_MS = 3000;

/**
 * The JSON a probe receives: `up` (200) or `down` (503) with the reasons.
 * Up with warnings is degraded: nothing is wrong yet, but something could
 * lose tasks (a store that keeps nothing on disk).
 */
export interface WorkerHealthReport {
  status: 'up' | 'down';
  reasons: string[];
  warnings: string[];
  childrenAlive: number;
  childrenExpected: number;
  maintenancePassAgeMs: number | null;
  done: number;
  failed: number;
}

/**
 * Up while the pool runs, its maintenance pass runs regularly, all its
 * children are alive and its store has not lost its data; warnings say what
 * makes it degraded (storeHealth).
 */
export function assessPoolHealth(health: PoolHealth, now = Date.now()): WorkerHealthReport {
  const reasons: string[] = [];
  const maintenancePassAgeMs =
    health.lastMaintenancePassAt === null ? null : Math.max(0, now - health.lastMaintenancePassAt);
  const maintenanceLimitMs = Math.max(
    MAINTENANCE_INTERVALS_ALLOWED * health.maintenanceIntervalMs,
    MIN_MAINTENANCE_AGE_MS,
  );
  if (health.stopping) reasons.push('the pool is stopping');
  if (maintenancePassAgeMs === null) reasons.push('no maintenance pass has completed yet');
  else if (maintenancePassAgeMs > maintenanceLimitMs) {
    reasons.push(
      `the last maintenance pass is ${maintenancePassAgeMs} ms old (limit ${maintenanceLimitMs} ms)`,
    );
  }
  if (health.childrenWedged > 0) {
    reasons.push(`${health.childrenWedged} worker children stopped answering`);
  }
  if (health.childrenAlive < health.childrenExpected) {
    reasons.push(`${health.childrenAlive} of ${health.childrenExpected} worker children are alive`);
  }
  reasons.push(...health.store.down);
  return {
    status: reasons.length === 0 ? 'up' : 'down',
    reasons,
    warnings: health.store.warnings,
    childrenAlive: health.childrenAlive,
    childrenExpected: health.childrenExpected,
    maintenancePassAgeMs,
    done: health.done,
    failed: health.failed,
  };
}

/**
 * `threadmill worker --health-port N`: a liveness endpoint of the pool's main
 * process for orchestrators, on any path: 200 while the pool is healthy, 503
 * with the reasons otherwise. It answers from the pool's own state, so a probe
 * costs no backend round trip. `GET /metrics` is the one other path: the
 * pool's Prometheus metrics (see docs/metrics.md), or 501 without prom-client.
 */
export class WorkerHealthServer {
  private readonly logger = new Logger('WorkerHealth');
  private server: Server | null = null;

  constructor(
    private readonly requestedPort: number,
    private readonly health: () => PoolHealth,
    private readonly metrics: PoolMetricsSource = null,
  ) {}

  /** The port it listens on (the system's pick when asked for 0). */
  get port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : this.requestedPort;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const read = request.method === 'GET' || request.method === 'HEAD';
      if (read && request.url?.split('?')[0] === '/metrics') {
        void this.answerMetrics(request, response);
        return;
      }
      const report = assessPoolHealth(this.health());
      response.writeHead(report.status === 'up' ? 200 : 503, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      });
      response.end(request.method === 'HEAD' ? undefined : JSON.stringify(report));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.requestedPort, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(workerHealthListening(this.port));
  }

  private async answerMetrics(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const headers = { 'cache-control': 'no-store' };
    if (this.metrics === null) {
      response.writeHead(501, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      response.end(request.method === 'HEAD' ? undefined : `${metricsNeedPromClient()}\n`);
      return;
    }
    try {
      const page = await this.metrics.render();
      response.writeHead(200, { ...headers, 'content-type': page.contentType });
      response.end(request.method === 'HEAD' ? undefined : page.body);
    } catch (error) {
      this.logger.error(metricsRenderFailed(error));
      response.writeHead(500, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      response.end(request.method === 'HEAD' ? undefined : `${metricsRenderFailed(error)}\n`);
    }
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
