import { Injectable } from '@nestjs/common';
import { limitsWord } from '../core/control.messages';
import type { QueueLimits } from '../core/queue-limits';
import { shown } from '../core/shown';
import { QueueService } from '../queue/queue.service';
import { ScheduleService } from '../schedule/schedule.service';
import { DashboardActionLog } from './dashboard-action-log';
import { DashboardBackends } from './dashboard-backends';

/**
 * The dashboard's actions on queues (pause, resume, limits) through
 * QueueService, and on schedules (run now) through ScheduleService. Each
 * done action is logged.
 *
 * @internal
 */
@Injectable()
export class DashboardQueueActions {
  constructor(
    private readonly backends: DashboardBackends,
    private readonly queues: QueueService,
    private readonly schedules: ScheduleService,
    private readonly log: DashboardActionLog,
  ) {}

  /** @throws UnknownQueueError (404) for a queue the backend does not configure. */
  async pause(
    request: unknown,
    alias: string | undefined,
    queue: string,
    paused: boolean,
  ): Promise<{ paused: boolean }> {
    const known = this.backends.get(alias).alias;
    if (paused) await this.queues.pause(queue, { alias: known });
    else await this.queues.resume(queue, { alias: known });
    this.log.record(request, paused ? 'pause' : 'resume', known, `queue ${shown(queue)}`, 1);
    return { paused };
  }

  /** Sets the queue's limits for every pool; null lifts them. */
  async setLimits(
    request: unknown,
    alias: string | undefined,
    queue: string,
    limits: QueueLimits | null,
  ): Promise<{ limits: QueueLimits | null }> {
    const known = this.backends.get(alias).alias;
    await this.queues.setLimits(queue, limits, { alias: known });
    this.log.record(request, 'limits', known, `queue ${shown(queue)} (${limitsWord(limits)})`, 1);
    return { limits };
  }

  /** Enqueues one run of the schedule's task now. @throws UnknownScheduleError (404). */
  async runSchedule(
    request: unknown,
    alias: string | undefined,
    id: string,
  ): Promise<{ taskId: string }> {
    const known = this.backends.get(alias).alias;
    const result = await this.schedules.trigger(id, { alias: known });
    this.log.record(request, 'run', known, `schedule ${shown(id)} (task ${result.id})`, 1);
    return { taskId: result.id };
  }
}
