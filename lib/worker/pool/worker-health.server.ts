import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';

import { workerHealthListening } from '../../core/worker.messages';
import type { PoolHealth } from './worker-pool.deps';

/** A maintenance pass older than this many intervals means the main process is stuck. */
const MAINTENANCE_INTERVALS_ALLOWED = 3;
/** ...but never less than this, so a single slow pass on a short interval does not flap. */
const MIN_MAINTENANCE_AGE_MS = 3000;

/** The JSON a probe receives: `up` (200) or `down` (503) with the reasons. */
export interface WorkerHealthReport {
  status: 'up' | 'down';
  reasons: string[];
  childrenAlive: number;
  childrenExpected: number;
  maintenancePassAgeMs: number | null;
  /** @deprecated The earlier name of `maintenancePassAgeMs`, the same value. */
  brokerPassAgeMs: number | null;
  done: number;
  failed: number;
}

/** Up while the pool runs, its maintenance pass runs regularly and all its children are alive. */
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
  return {
    status: reasons.length === 0 ? 'up' : 'down',
    reasons,
    childrenAlive: health.childrenAlive,
    childrenExpected: health.childrenExpected,
    maintenancePassAgeMs,
    brokerPassAgeMs: maintenancePassAgeMs,
    done: health.done,
    failed: health.failed,
  };
}

/**
 * `threadmill worker --health-port N`: a liveness endpoint of the pool's main
 * process for orchestrators, on any path: 200 while the pool is healthy, 503
 * with the reasons otherwise. It answers from the pool's own state, so a probe
 * costs no backend round trip.
 */
export class WorkerHealthServer {
  private readonly logger = new Logger('WorkerHealth');
  private server: Server | null = null;

  constructor(
    private readonly requestedPort: number,
    private readonly health: () => PoolHealth,
  ) {}

  /** The port it listens on (the system's pick when asked for 0). */
  get port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : this.requestedPort;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
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

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
