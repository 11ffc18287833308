import { Option, SubCommand } from 'nest-commander';

import {
  AliasFlag,
  aliasFlag,
  parseAliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { parseJsonArray, parseName, parseWholeNumber } from './parse-option.util';
import { scheduleCommandNeedsTiming } from '../schedule/schedule.messages';
import type { ScheduleOptions } from '../core/schedule-options.interface';
import { ScheduleService } from '../schedule/schedule.service';

/** The `schedules add` options as commander hands them over. */
export interface SchedulesAddCommandOptions extends AliasFlags {
  cron?: string;
  every?: number;
  args?: unknown[];
  timezone?: string;
  queue?: string;
}

/**
 * `threadmill schedules add <id> <task>`: add a schedule, or replace the one
 * with this id, and print its id and next tick.
 *
 * @internal
 */
@SubCommand({
  name: 'add',
  arguments: '<id> <task>',
  argsDescription: {
    id: 'the schedule id (letters, digits, - _ . :)',
    task: 'the stable name of a @Task',
  },
  description: 'Add a schedule (or replace the one with this id) and print its next tick.',
})
export class SchedulesAddCommand extends AliasedCommand {
  constructor(
    private readonly schedules: ScheduleService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id, task]: string[], options: SchedulesAddCommandOptions = {}): Promise<void> {
    if ((options.cron === undefined) === (options.every === undefined)) {
      return this.output.usageError(scheduleCommandNeedsTiming());
    }
    const schedule: ScheduleOptions = { task };
    for (const key of ['cron', 'every', 'args', 'timezone', 'queue'] as const) {
      if (options[key] !== undefined) Object.assign(schedule, { [key]: options[key] });
    }
    try {
      const alias = aliasFlag(options);
      if (alias !== undefined) schedule.alias = alias;
      const added = await this.schedules.add(id, schedule);
      this.output.line(`${added.id}\t${added.nextTickAt?.toISOString() ?? 'paused'}`);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @Option({
    flags: '--cron <expression>',
    description: 'Cron expression, 5 fields or 6 with seconds first (quote it).',
  })
  parseCron(value: string): string {
    return value;
  }

  @Option({
    flags: '--every <ms>',
    description: 'A fixed interval in ms, at least 1000 (instead of --cron).',
  })
  parseEvery(value: string): number {
    return parseWholeNumber('--every', value, 1000);
  }

  @Option({ flags: '--args <json>', description: 'The arguments as a JSON array. Default: [].' })
  parseArgs(value: string): unknown[] {
    return parseJsonArray('--args', value);
  }

  @Option({
    flags: '--timezone <zone>',
    description: 'IANA time zone of the cron expression. Default: UTC.',
  })
  parseTimezone(value: string): string {
    return value;
  }

  @Option({
    flags: '--queue <queue>',
    description: "Queue of each tick's task. Default: the task's.",
  })
  parseQueue(value: string): string {
    return parseName('--queue', value);
  }

  @AliasFlag('that stores the schedule and its tasks', "the task's")
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
