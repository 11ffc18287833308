// `@threadmill/nestjs/health`: the @nestjs/terminus health indicator, which
// needs the optional peer @nestjs/terminus.
export { ThreadmillHealthIndicator } from './threadmill.health';
export type { HealthThresholds, ThreadmillHealthOptions } from './health-thresholds.interface';
