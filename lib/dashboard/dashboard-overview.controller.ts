import {
  Controller,
  Get,
  Inject,
  Query,
  Req,
  Sse,
  UseFilters,
  UseGuards,
  type MessageEvent,
} from '@nestjs/common';
import { Observable } from 'rxjs';
import type { BackendActivity, PoolStatus } from '../core/task-listing';
import { ActivityCache } from './activity-cache.service';
import { DashboardAccessGuard } from './dashboard-access.guard';
import type { DashboardMeta, Overview } from './dashboard-api.interface';
import { DashboardBackends } from './dashboard-backends';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { DashboardReads, type ScheduleView } from './dashboard-reads.service';
import { CSRF_HEADER, DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';
import { OverviewSnapshots } from './overview-snapshots.service';

/**
 * The dashboard's reads of whole backends: meta, the overview (and its live
 * stream), the last hour's activity, schedules and worker pools.
 *
 * @internal
 */
@Controller('api')
@UseGuards(DashboardAccessGuard)
@UseFilters(DashboardExceptionFilter)
export class DashboardOverviewController {
  constructor(
    private readonly backends: DashboardBackends,
    private readonly access: DashboardAccessGuard,
    private readonly snapshots: OverviewSnapshots,
    private readonly activityCache: ActivityCache,
    private readonly reads: DashboardReads,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  @Get('meta')
  async meta(@Req() request: unknown): Promise<DashboardMeta> {
    return {
      aliases: this.backends.list(),
      canAct: await this.access.mayAct(request),
      refreshMs: this.settings.refreshMs,
      csrfHeader: CSRF_HEADER,
    };
  }

  @Get('overview')
  overview(@Query('alias') alias?: string): Promise<Overview> {
    return this.snapshots.current(this.backends.get(alias).alias);
  }

  /** Server-sent events: `overview` each refresh (`unavailable` when the store did not answer). */
  @Sse('stream')
  stream(@Query('alias') alias?: string): Observable<MessageEvent> {
    const chosen = this.backends.get(alias).alias;
    return new Observable<MessageEvent>((subscriber) =>
      this.snapshots.subscribe(chosen, (update) => {
        subscriber.next(
          'overview' in update
            ? { type: 'overview', data: update.overview }
            : { type: 'unavailable', data: { error: update.error } },
        );
      }),
    );
  }

  @Get('activity')
  activity(@Query('alias') alias?: string): Promise<BackendActivity> {
    return this.activityCache.get(alias);
  }

  @Get('schedules')
  schedules(@Query('alias') alias?: string): Promise<ScheduleView[]> {
    return this.reads.schedules(alias);
  }

  @Get('pools')
  pools(@Query('alias') alias?: string): Promise<PoolStatus[]> {
    return this.reads.pools(alias);
  }
}
