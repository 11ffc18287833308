import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';

import { ThreadmillDashboardModule } from '../../lib/dashboard';
import { ThreadmillHealthIndicator } from '../../lib/health';
import { AppModule } from './app.module';
import { HealthController } from './http/health.controller';
import { TasksController } from './http/tasks.controller';

/** The sample's HTTP app: the same tasks and backend as the worker, plus controllers and the dashboard. */
@Module({
  imports: [
    AppModule,
    TerminusModule,
    // `open: true` serves the dashboard, and its actions, to anyone who reaches the port: this is
    // for local use only (the sample listens on 127.0.0.1). A real app gives `authorize` instead.
    ThreadmillDashboardModule.forRoot({ path: '/threadmill', open: true }),
  ],
  controllers: [TasksController, HealthController],
  providers: [ThreadmillHealthIndicator],
})
export class WebModule {}
