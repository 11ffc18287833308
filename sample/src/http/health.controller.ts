import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';

import { ThreadmillHealthIndicator } from '../../../lib/health';
import { sampleConfig } from '../sample.config';

/**
 * `GET /health` (readiness: Redis answers, a worker pool's maintenance pass is recent,
 * no queue over its threshold) and `GET /health/live` (liveness of the web
 * app itself: Redis answers; it must not restart web pods because workers are down).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly threadmill: ThreadmillHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () =>
        this.threadmill.isHealthy('threadmill', {
          alias: sampleConfig.alias,
          thresholds: sampleConfig.healthThresholds,
        }),
    ]);
  }

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([
      () =>
        this.threadmill.isHealthy('threadmill', {
          alias: sampleConfig.alias,
          requireMaintenance: false,
        }),
    ]);
  }
}
