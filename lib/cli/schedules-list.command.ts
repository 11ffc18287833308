import { SubCommand } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import type { ScheduleInfo } from '../schedule/schedule-info';
import { ScheduleService } from '../schedule/schedule.service';

/** The `schedules list` options as commander hands them over. */
export type SchedulesListCommandOptions = AliasFlags;

/**
 * The columns of `schedules list`, one schedule a line, tab-separated; `app`
 * last, so scripts that read the earlier columns by position still do.
 */
const COLUMNS = [
  'id',
  'task',
  'when',
  'state',
  'next tick',
  'last tick',
  'last task',
  'status',
  'app',
];

/**
 * `threadmill schedules list`: every schedule of a backend with its next
 * tick, last tick and the last tick's task and status.
 *
 * @internal
 */
@SubCommand({
  name: 'list',
  description: 'List the schedules with their next tick, last tick, its task status and app.',
})
export class SchedulesListCommand extends AliasedCommand {
  constructor(
    private readonly schedules: ScheduleService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(_params: string[], options: SchedulesListCommandOptions = {}): Promise<void> {
    try {
      const schedules = await this.schedules.list({ alias: aliasFlag(options) });
      this.output.line(COLUMNS.join('\t'));
      for (const schedule of schedules) this.output.line(listLine(schedule).join('\t'));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('whose schedules are listed')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}

function listLine(schedule: ScheduleInfo): string[] {
  const when =
    schedule.cron === undefined
      ? `every ${schedule.every} ms`
      : `${schedule.cron} (${schedule.timezone})`;
  return [
    schedule.id,
    schedule.task,
    when,
    `${schedule.paused ? 'paused' : 'active'}, ${schedule.origin}`,
    schedule.nextTickAt?.toISOString() ?? '-',
    schedule.lastTick?.at.toISOString() ?? '-',
    schedule.lastTick?.taskId ?? '-',
    schedule.lastTick ? (schedule.lastTick.status ?? 'expired') : '-',
    schedule.app,
  ];
}
