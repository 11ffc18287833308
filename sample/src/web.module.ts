import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';

import { ThreadmillHealthIndicator } from '../../lib/health';
import { AppModule } from './app.module';
import { HealthController } from './http/health.controller';
import { TasksController } from './http/tasks.controller';

/** The sample's HTTP app: the same tasks and backend as the worker, plus controllers. */
@Module({
  imports: [AppModule, TerminusModule],
  controllers: [TasksController, HealthController],
  providers: [ThreadmillHealthIndicator],
})
export class WebModule {}
