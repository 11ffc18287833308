import type { AddressInfo } from 'node:net';

import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

import { ThreadmillModule, type BackendConfig } from '../../lib';
import { ThreadmillDashboardModule, type ThreadmillDashboardOptions } from '../../lib/dashboard';

export interface DashboardApp {
  readonly app: INestApplication;
  /** The dashboard's page, `http://127.0.0.1:<port>/threadmill` (Fastify serves no trailing slash). */
  readonly pageUrl: string;
}

/**
 * A real Nest app on a free loopback port, as a user has one: ThreadmillModule
 * with `backends`, and the dashboard at /threadmill, on Express or Fastify.
 */
export async function startDashboardApp(
  adapter: 'express' | 'fastify',
  backends: Record<string, BackendConfig>,
  dashboard: ThreadmillDashboardOptions,
): Promise<DashboardApp> {
  @Module({
    imports: [
      ThreadmillModule.forRoot({ isGlobal: true, backends }),
      ThreadmillDashboardModule.forRoot({ path: '/threadmill', ...dashboard }),
    ],
  })
  class DashboardTestModule {}

  const app =
    adapter === 'fastify'
      ? await NestFactory.create(DashboardTestModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(DashboardTestModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, pageUrl: `http://127.0.0.1:${port}/threadmill` };
}
