import {
  Body,
  Controller,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Put,
  Query,
  Req,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { dashboardRouteNotFound } from './dashboard.messages';
import type { QueueLimits } from '../core/queue-limits';
import { Acts } from './dashboard-action.decorator';
import { DashboardAccessGuard } from './dashboard-access.guard';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { limitsBody } from './dashboard-input';
import { DashboardQueueActions } from './dashboard-queue-actions.service';

/**
 * The dashboard's actions on queues (pause, resume, limits) and schedules (run now).
 *
 * @internal
 */
@Controller('api')
@UseGuards(DashboardAccessGuard)
@UseFilters(DashboardExceptionFilter)
export class DashboardQueuesController {
  constructor(private readonly actions: DashboardQueueActions) {}

  /** `pause` or `resume` a queue for every pool. */
  @Post('queues/:queue/:action')
  @HttpCode(200)
  @Acts()
  pause(
    @Req() request: unknown,
    @Param('queue') queue: string,
    @Param('action') action: string,
    @Query('alias') alias?: string,
  ): Promise<{ paused: boolean }> {
    if (action !== 'pause' && action !== 'resume') {
      throw new NotFoundException(dashboardRouteNotFound(`POST queues/:queue/${action}`));
    }
    return this.actions.pause(request, alias, queue, action === 'pause');
  }

  /** Sets a queue's limits for every pool: `{ concurrency?, rateLimit? }`; `{}` or null lifts them. */
  @Put('queues/:queue/limits')
  @Acts()
  limits(
    @Req() request: unknown,
    @Param('queue') queue: string,
    @Body() body: unknown,
    @Query('alias') alias?: string,
  ): Promise<{ limits: QueueLimits | null }> {
    return this.actions.setLimits(request, alias, queue, limitsBody(body));
  }

  @Post('schedules/:id/run')
  @HttpCode(200)
  @Acts()
  run(
    @Req() request: unknown,
    @Param('id') id: string,
    @Query('alias') alias?: string,
  ): Promise<{ taskId: string }> {
    return this.actions.runSchedule(request, alias, id);
  }
}
