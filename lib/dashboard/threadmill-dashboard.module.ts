import {
  Logger,
  Module,
  type DynamicModule,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { EventStream } from '../core/event-stream';
import { StreamLogListener } from '../worker/stream-log.listener';
import { ActivityCache } from './activity-cache.service';
import { DashboardAccessGuard } from './dashboard-access.guard';
import { DashboardActionLog } from './dashboard-action-log';
import { DashboardAssets } from './dashboard-assets';
import { DashboardBackends } from './dashboard-backends';
import type { ThreadmillDashboardOptions } from './dashboard-options.interface';
import { DashboardOverviewController } from './dashboard-overview.controller';
import { DashboardPageController } from './dashboard-page.controller';
import { DashboardQueueActions } from './dashboard-queue-actions.service';
import { DashboardQueuesController } from './dashboard-queues.controller';
import { DashboardReads } from './dashboard-reads.service';
import {
  DASHBOARD_SETTINGS,
  DEFAULT_DASHBOARD_PATH,
  dashboardSettings,
  normalizeDashboardPath,
} from './dashboard-settings';
import { DashboardTaskActions } from './dashboard-task-actions.service';
import { DashboardTasksController } from './dashboard-tasks.controller';
import { OverviewSnapshots } from './overview-snapshots.service';

/**
 * Threadmill's web dashboard, mounted in your Nest app (Express or
 * Fastify) at `path`: every queue's counts live, task lists and detail,
 * schedules and worker pools, and the actions of the CLI (cancel, retry,
 * remove, pause, resume, limits, run a schedule). It reads and acts
 * through the app's ThreadmillModule, which must be global (`isGlobal: true`).
 * It refuses to boot without an access rule (`authorize`, `guards`) unless
 * `open: true` says so; see docs/dashboard.md.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     ThreadmillModule.forRoot({ isGlobal: true, backends: { default: { backend: RedisBackend } } }),
 *     ThreadmillDashboardModule.forRoot({
 *       path: '/threadmill',
 *       authorize: (request, action) => action === 'read' || isAdmin(request),
 *     }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({})
export class ThreadmillDashboardModule implements OnModuleInit, OnModuleDestroy {
  private stopLog: (() => void) | undefined;

  constructor(private readonly stream: EventStream) {}

  /**
   * @throws DashboardAccessRuleMissingError at bootstrap without `authorize`, `guards` or `open: true`.
   * @throws InvalidDashboardOptionError at bootstrap, naming the option at fault.
   */
  static forRoot(options: ThreadmillDashboardOptions = {}): DynamicModule {
    const path = normalizeDashboardPath(options.path);
    return {
      module: ThreadmillDashboardModule,
      imports: [
        RouterModule.register([
          // An invalid path fails the settings' check below; the router only needs a string.
          {
            path: typeof path === 'string' ? path : DEFAULT_DASHBOARD_PATH,
            module: ThreadmillDashboardModule,
          },
        ]),
      ],
      // The API's routes before the page's: Express answers with the first route that matches.
      controllers: [
        DashboardOverviewController,
        DashboardTasksController,
        DashboardQueuesController,
        DashboardPageController,
      ],
      providers: [
        { provide: DASHBOARD_SETTINGS, useFactory: () => dashboardSettings(options) },
        { provide: DashboardAssets, useFactory: () => new DashboardAssets() },
        DashboardAccessGuard,
        DashboardBackends,
        DashboardActionLog,
        OverviewSnapshots,
        ActivityCache,
        DashboardReads,
        DashboardTaskActions,
        DashboardQueueActions,
      ],
    };
  }

  /** The action log line of each dashboard action, in this process's log. */
  onModuleInit(): void {
    this.stopLog = new StreamLogListener(
      this.stream,
      new Logger('ThreadmillDashboard'),
    ).dashboard();
  }

  onModuleDestroy(): void {
    this.stopLog?.();
  }
}
