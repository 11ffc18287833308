import {
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { dashboardRouteNotFound } from './dashboard.messages';
import { Acts } from './dashboard-action.decorator';
import { DashboardAccessGuard } from './dashboard-access.guard';
import type { TaskDetail, TaskListPage } from './dashboard-api.interface';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { bulkTarget, limitParam, segmentParam, textParam } from './dashboard-input';
import { DashboardReads } from './dashboard-reads.service';
import {
  DashboardTaskActions,
  type BulkAction,
  type TaskActionResult,
} from './dashboard-task-actions.service';

const BULK_ACTIONS: readonly string[] = ['cancel', 'retry', 'remove'];

function bulkAction(action: string, route: string): BulkAction {
  if (!BULK_ACTIONS.includes(action)) throw new NotFoundException(dashboardRouteNotFound(route));
  return action as BulkAction;
}

/**
 * The dashboard's task lists, task detail, and actions on tasks (one by id,
 * or many by ids or filter).
 *
 * @internal
 */
@Controller('api/tasks')
@UseGuards(DashboardAccessGuard)
@UseFilters(DashboardExceptionFilter)
export class DashboardTasksController {
  constructor(
    private readonly reads: DashboardReads,
    private readonly actions: DashboardTaskActions,
  ) {}

  @Get()
  list(@Query() query: Record<string, unknown>): Promise<TaskListPage> {
    const text = (name: string): string | undefined => textParam(name, query[name]);
    return this.reads.tasks({
      alias: text('alias'),
      queue: text('queue'),
      segment: segmentParam(text('segment')),
      limit: limitParam(text('limit')),
      cursor: text('cursor'),
      task: text('task'),
      id: text('id'),
    });
  }

  @Get(':id')
  detail(@Param('id') id: string, @Query('alias') alias?: string): Promise<TaskDetail> {
    return this.reads.task(alias, id);
  }

  /** `cancel`, `retry` or `remove` every task of `ids`, or every one a filter matches: `{ count }`. */
  @Post(':action')
  @HttpCode(200)
  @Acts()
  many(
    @Req() request: unknown,
    @Param('action') action: string,
    @Body() body: unknown,
    @Query('alias') alias?: string,
  ): Promise<{ count: number }> {
    const chosen = bulkAction(action, `POST tasks/${action}`);
    return this.actions.many(request, alias, chosen, bulkTarget(body));
  }

  /** `cancel`, `retry` or `remove` one task: its outcome, 409 when nothing changed. */
  @Post(':id/:action')
  @HttpCode(200)
  @Acts()
  one(
    @Req() request: unknown,
    @Param('id') id: string,
    @Param('action') action: string,
    @Query('alias') alias?: string,
  ): Promise<TaskActionResult> {
    return this.actions.one(request, alias, bulkAction(action, `POST tasks/:id/${action}`), id);
  }
}
