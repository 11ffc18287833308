import { Module } from '@nestjs/common';

import { RedisBackend, ThreadmillCommandsModule, ThreadmillModule } from '../../lib';
import { sampleConfig } from './sample.config';
import { GreetingService } from './tasks/greeting.service';
import { GreetingTasks } from './tasks/greeting.tasks';
import { SampleTasks } from './tasks/sample.tasks';

/**
 * The sample app: one Redis backend (alias from THREADMILL_ALIAS, default
 * `default`) with the queues `default` and `emails`, the sample tasks, and the
 * `threadmill` commands (worker, enqueue, result) for the CLI entry.
 */
@Module({
  imports: [
    ThreadmillModule.forRoot({
      // Global, so ThreadmillCommandsModule (and any module of the app) can use it.
      isGlobal: true,
      backends: {
        [sampleConfig.alias]: {
          backend: RedisBackend,
          url: sampleConfig.redisUrl,
          queues: [...sampleConfig.queues],
          options: {
            ...(sampleConfig.leaseTtl !== undefined && { leaseTtl: sampleConfig.leaseTtl }),
            ...(sampleConfig.brokerInterval !== undefined && {
              brokerInterval: sampleConfig.brokerInterval,
            }),
          },
        },
      },
    }),
    ThreadmillCommandsModule,
  ],
  providers: [SampleTasks, GreetingService, GreetingTasks],
})
export class AppModule {}
