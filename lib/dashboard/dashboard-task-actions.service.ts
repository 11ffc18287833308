import { BadRequestException, ConflictException, Injectable } from '@nestjs/common';
import { dashboardStateConflict, invalidDashboardInput } from './dashboard.messages';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { assertKnownQueue } from '../core/known-queue';
import { RETRYABLE_BY_HAND } from '../core/manual-retry';
import type { FinishedSegment } from '../core/queue-segment';
import { shown } from '../core/shown';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskResultStatus } from '../core/task-result-status.enum';
import { TaskControlService } from '../task/task-control.service';
import { DashboardActionLog } from './dashboard-action-log';
import { DashboardBackends } from './dashboard-backends';
import type { BulkTarget } from './dashboard-input';
import { countByIds, countInSegment, isFinal, walkSegment } from './matching-tasks';

/** What one task's action did: its outcome, as TaskControlService reports it. */
export interface TaskActionResult {
  outcome: string;
}

export type BulkAction = 'cancel' | 'retry' | 'remove';

const WAITING: readonly ('ready' | 'deferred')[] = ['ready', 'deferred'];
const STATUS_OF: Record<FinishedSegment, 'SUCCESSFUL' | 'FAILED' | 'CANCELLED'> = {
  successful: 'SUCCESSFUL',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};

/**
 * The dashboard's actions on tasks, through TaskControlService: one task
 * by id, or many (by ids, or every task a filter matches; `dryRun` only
 * counts them, for the confirmation). Each done action is logged.
 *
 * @internal
 */
@Injectable()
export class DashboardTaskActions {
  constructor(
    private readonly backends: DashboardBackends,
    private readonly control: TaskControlService,
    private readonly log: DashboardActionLog,
  ) {}

  /** @throws ConflictException (409) when the task had already finished. */
  async one(
    request: unknown,
    alias: string | undefined,
    action: BulkAction,
    id: string,
  ): Promise<TaskActionResult> {
    const backend = this.backends.get(alias).alias;
    const outcome = await this.actOn(backend, action, id);
    if (!this.changed(action, outcome))
      throw new ConflictException(dashboardStateConflict(id, outcome));
    this.log.record(request, action, backend, `task ${id}`, 1);
    return { outcome };
  }

  /** How many tasks the action changed (or, with `dryRun`, would change). */
  async many(
    request: unknown,
    alias: string | undefined,
    action: BulkAction,
    target: BulkTarget,
  ): Promise<{ count: number }> {
    const backend = this.backends.get(alias);
    if (target.ids !== undefined) {
      const ids = target.ids;
      if (target.dryRun) return { count: await countByIds(backend, ids, this.applies(action)) };
      let count = 0;
      for (const id of ids) {
        const outcome = await this.actOn(backend.alias, action, id).catch((error: unknown) => {
          if (error instanceof TaskResultDoesNotExist) return 'gone';
          throw error;
        });
        if (this.changed(action, outcome)) count++;
      }
      return {
        count: this.log.record(
          request,
          action,
          backend.alias,
          `${ids.length} task(s) by id`,
          count,
        ),
      };
    }
    if (target.queue !== undefined) assertKnownQueue(backend.alias, backend.queues, target.queue);
    const count =
      action === 'cancel'
        ? await this.cancelMatching(backend, target)
        : await this.finishedMatching(backend, action, target);
    if (target.dryRun) return { count };
    return {
      count: this.log.record(request, action, backend.alias, this.describe(action, target), count),
    };
  }

  private async actOn(alias: string, action: BulkAction, id: string): Promise<string> {
    if (action === 'cancel') return (await this.control.cancel(id, { alias })).outcome;
    if (action === 'retry') return (await this.control.retry(id, { alias })).outcome;
    return this.control.remove(id, { alias });
  }

  private changed(action: BulkAction, outcome: string): boolean {
    if (action === 'cancel') return outcome === 'cancelled' || outcome === 'requested';
    return outcome === (action === 'retry' ? 'retried' : 'removed');
  }

  /** Which stored statuses the action changes, for a dry run by ids. */
  private applies(action: BulkAction): (status: TaskResultStatus) => boolean {
    if (action === 'cancel') return (status) => !isFinal(status);
    if (action === 'retry') return (status) => RETRYABLE_BY_HAND.has(status);
    return isFinal;
  }

  /** The waiting tasks of a queue, of a task name, or of both, cancelled (or counted). */
  private async cancelMatching(backend: TaskBackend, target: BulkTarget): Promise<number> {
    const { queue, task: taskName } = target;
    if (target.dryRun) {
      let count = 0;
      for (const each of queue !== undefined ? [queue] : backend.queues) {
        for (const segment of WAITING) {
          count += await countInSegment(backend, { queue: each, segment, taskName });
        }
      }
      return count;
    }
    if (queue === undefined || taskName === undefined) {
      // One filter alone: TaskControlService sweeps it.
      const filter = queue !== undefined ? { queue } : { taskName: taskName as string };
      return this.control.cancelWaiting(filter, { alias: backend.alias });
    }
    let count = 0;
    for (const segment of WAITING) {
      await walkSegment(backend, { queue, segment, taskName }, async (records) => {
        for (const { id } of records) {
          if (this.changed('cancel', await this.actOn(backend.alias, 'cancel', id))) count++;
        }
      });
    }
    return count;
  }

  /** The final tasks of a queue in one status (of a task name or any), retried or removed (or counted). */
  private async finishedMatching(
    backend: TaskBackend,
    action: 'retry' | 'remove',
    target: BulkTarget,
  ): Promise<number> {
    const segment: FinishedSegment = target.status ?? 'failed';
    if (target.queue === undefined) {
      throw new BadRequestException(
        invalidDashboardInput('queue', `must be given to ${action} tasks by filter`),
      );
    }
    if (action === 'retry' && segment === 'successful') {
      throw new BadRequestException(
        invalidDashboardInput('status', 'must be "failed" or "cancelled" to retry'),
      );
    }
    const where = {
      queue: target.queue,
      segment,
      ...(target.task !== undefined && { taskName: target.task }),
    };
    if (target.dryRun) return countInSegment(backend, where);
    const filter = {
      queue: target.queue,
      status: STATUS_OF[segment],
      ...(target.task !== undefined && { task: target.task }),
    };
    return action === 'retry'
      ? this.control.retryAll(filter, { alias: backend.alias })
      : this.control.removeAll(filter, { alias: backend.alias });
  }

  private describe(action: BulkAction, target: BulkTarget): string {
    const which = action === 'cancel' ? 'waiting' : (target.status ?? 'failed');
    const where =
      target.queue !== undefined ? ` of queue ${shown(target.queue)}` : ' of every queue';
    const named = target.task !== undefined ? ` named ${shown(target.task)}` : '';
    return `${which} tasks${named}${where}`;
  }
}
