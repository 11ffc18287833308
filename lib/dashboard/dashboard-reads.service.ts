import { Inject, Injectable } from '@nestjs/common';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { assertKnownQueue } from '../core/known-queue';
import type { QueueSegment } from '../core/queue-segment';
import type { TaskBackend } from '../core/task-backend.interface';
import type { PoolStatus } from '../core/task-listing';
import type { TaskRecord } from '../core/task-record.interface';
import { ScheduleService } from '../schedule/schedule.service';
import type { ScheduleInfo } from '../schedule/schedule-info';
import type { Redacted, TaskDetail, TaskListPage, TaskSummary } from './dashboard-api.interface';
import { DashboardBackends } from './dashboard-backends';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';
import { taskDetail, taskSummary } from './task-view';

/** Which tasks a list page shows. */
export interface TaskListParams {
  alias?: string;
  queue?: string;
  segment: QueueSegment;
  limit: number;
  cursor?: string;
  task?: string;
  /** An exact id: that one task, in whatever queue and segment, or none. */
  id?: string;
}

/** A schedule as the page shows it: its args hidden where `redact` says so. */
export type ScheduleView = Omit<ScheduleInfo, 'args'> & { args: readonly unknown[] | Redacted };

/**
 * What the dashboard's pages read, through the backend contract and
 * ScheduleService, with each task's parts hidden where `redact` says so.
 *
 * @internal
 */
@Injectable()
export class DashboardReads {
  constructor(
    private readonly backends: DashboardBackends,
    private readonly scheduleService: ScheduleService,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /** One page of a segment of a queue (of one task name, or any), or the task of an exact id. */
  async tasks(params: TaskListParams): Promise<TaskListPage> {
    const backend = this.backends.get(params.alias);
    if (params.id !== undefined) {
      const record = await this.found(backend, params.id);
      return { tasks: record ? [this.summary(record)] : [], next: null };
    }
    const queue = params.queue ?? backend.queues[0];
    assertKnownQueue(backend.alias, backend.queues, queue);
    const page = await backend.reads.listTasks({
      queue,
      segment: params.segment,
      limit: params.limit,
      ...(params.cursor !== undefined && { cursor: params.cursor }),
      ...(params.task !== undefined && { taskName: params.task }),
    });
    return { tasks: page.records.map((record) => this.summary(record)), next: page.next };
  }

  /** @throws TaskResultDoesNotExist (404) for an unknown or expired id. */
  async task(alias: string | undefined, id: string): Promise<TaskDetail> {
    const record = await this.backends.get(alias).tasks.getResult(id);
    return taskDetail(record, this.settings.hiddenParts(record.task.name));
  }

  /** The alias's schedules; none for a backend that stores none. */
  async schedules(alias: string | undefined): Promise<ScheduleView[]> {
    const backend = this.backends.get(alias);
    const infos = await this.scheduleService.list({ alias: backend.alias });
    return infos.map((info) => ({
      ...info,
      args: this.settings.hiddenParts(info.task).has('args') ? { redacted: true } : info.args,
    }));
  }

  async pools(alias: string | undefined): Promise<PoolStatus[]> {
    return this.backends.get(alias).pools.list();
  }

  private summary(record: TaskRecord): TaskSummary {
    return taskSummary(record, this.settings.hiddenParts(record.task.name));
  }

  private async found(backend: TaskBackend, id: string): Promise<TaskRecord | null> {
    try {
      return await backend.tasks.getResult(id);
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) return null;
      throw error;
    }
  }
}
