import { Module } from '@nestjs/common';

import { ThreadmillModule, redisBackendConfigFromEnv, type BackendConfig } from '../../lib';
import { PostgresBackend } from '../../lib/backends/postgres';
import { SqliteBackend } from '../../lib/backends/sqlite';
import { ThreadmillCommandsModule } from '../../lib/cli';
import { sampleConfig } from './sample.config';
import { GreetingService } from './tasks/greeting.service';
import { GreetingTasks } from './tasks/greeting.tasks';
import { SampleTasks } from './tasks/sample.tasks';

/**
 * Redis when the environment names one (a single server, a cluster or Sentinel), else the
 * Postgres of DATABASE_URL, else a local SQLite file.
 */
function backendConfig(): BackendConfig {
  const queues = [...sampleConfig.queues];
  const options = {
    ...(sampleConfig.leaseTtl !== undefined && { leaseTtl: sampleConfig.leaseTtl }),
    ...(sampleConfig.maintenanceInterval !== undefined && {
      maintenanceInterval: sampleConfig.maintenanceInterval,
    }),
  };
  if (sampleConfig.store === 'postgres') {
    const schema = sampleConfig.postgresSchema;
    return {
      backend: PostgresBackend,
      url: sampleConfig.databaseUrl,
      queues,
      options: {
        ...options,
        ...(schema !== undefined && { schema }),
        ...(!sampleConfig.postgresMigrate && { migrate: false }),
      },
    };
  }
  return sampleConfig.store === 'redis'
    ? redisBackendConfigFromEnv({
        queues,
        options: {
          ...options,
          ...(sampleConfig.allowEviction && { allowEviction: true }),
          ...(sampleConfig.redisPrefix !== undefined && { prefix: sampleConfig.redisPrefix }),
          ...(sampleConfig.waitForReplicas && { waitForReplicas: sampleConfig.waitForReplicas }),
        },
      })
    : { backend: SqliteBackend, url: sampleConfig.sqliteFile, queues, options };
}

/**
 * The sample app: one backend (Redis, Postgres with DATABASE_URL, or SQLite without either; alias from THREADMILL_ALIAS, default
 * `default`; Redis key prefix from THREADMILL_REDIS_PREFIX; app name from THREADMILL_APP) with the
 * queues `default` and `emails`, the sample tasks, and the
 * `threadmill` commands (worker, enqueue, result) for the CLI entry.
 */
@Module({
  imports: [
    ThreadmillModule.forRoot({
      // Global, so ThreadmillCommandsModule (and any module of the app) can use it.
      isGlobal: true,
      ...(sampleConfig.app !== undefined && { app: sampleConfig.app }),
      backends: {
        [sampleConfig.alias]: backendConfig(),
      },
    }),
    ThreadmillCommandsModule,
  ],
  providers: [SampleTasks, GreetingService, GreetingTasks],
})
export class AppModule {}
