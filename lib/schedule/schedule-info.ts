import type { ScheduleOrigin, StoredSchedule } from '../core/ports/schedule-store.port';
import type { TaskResultStatus } from '../core/task-result-status.enum';
import type { ResolvedCatchUp } from './due-ticks';
import { appOf } from './schedule-app';
import type { ScheduleDefinition } from './schedule-definition';

/**
 * A stored schedule as `ScheduleService.list` and `get` report it.
 *
 * @publicApi
 */
export interface ScheduleInfo {
  readonly id: string;
  /** The alias of the backend that stores it and its tasks. */
  readonly alias: string;
  /** @deprecated Renamed `alias` (same value) in 0.4.0; kept until 0.5.0. */
  readonly backend: string;
  readonly task: string;
  readonly cron?: string;
  readonly timezone?: string;
  readonly every?: number;
  readonly args: readonly unknown[];
  /** Absent: the task's own. */
  readonly queue?: string;
  readonly priority?: number;
  readonly catchUp: ResolvedCatchUp;
  readonly overlap: 'allow' | 'skip';
  /** `declared` in code (`@Task({ schedule })`), or added at `runtime`. */
  readonly origin: ScheduleOrigin;
  /**
   * The app (ThreadmillModule's `app` option) that declared or added it;
   * `'default'` for one stored before apps were recorded.
   */
  readonly app: string;
  readonly paused: boolean;
  /** The next tick due (the store's clock); null while paused. */
  readonly nextTickAt: Date | null;
  /**
   * The last tick a pass handled, its task's id and that task's status (null
   * once the task's result expired).
   */
  readonly lastTick: {
    readonly at: Date;
    readonly taskId: string;
    readonly status: TaskResultStatus | null;
  } | null;
}

/** What list and get report for one stored schedule whose definition was read. */
export function scheduleInfo(
  stored: StoredSchedule,
  definition: ScheduleDefinition,
  alias: string,
  lastStatus: TaskResultStatus | null,
): ScheduleInfo {
  const { rule } = definition;
  return {
    id: stored.id,
    alias,
    backend: alias,
    task: definition.task,
    ...('cron' in rule ? { cron: rule.cron, timezone: rule.timezone } : { every: rule.every }),
    args: definition.args,
    ...(definition.queue === undefined ? {} : { queue: definition.queue }),
    ...(definition.priority === undefined ? {} : { priority: definition.priority }),
    catchUp: definition.catchUp,
    overlap: definition.overlap,
    origin: stored.origin,
    app: appOf(stored),
    paused: stored.paused,
    nextTickAt: stored.nextTickMs === null ? null : new Date(stored.nextTickMs),
    lastTick:
      stored.lastTick === null
        ? null
        : {
            at: new Date(stored.lastTick.tickMs),
            taskId: stored.lastTick.taskId,
            status: lastStatus,
          },
  };
}
