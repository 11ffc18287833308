import { SubCommand } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { ScheduleService } from '../schedule/schedule.service';

/** The `schedules run` options as commander hands them over. */
export type SchedulesRunCommandOptions = AliasFlags;

/**
 * `threadmill schedules run <id>`: enqueue one run of a schedule's task now,
 * outside its ticks, and print the new task's id; exit 1 when none has the id.
 *
 * @internal
 */
@SubCommand({
  name: 'run',
  arguments: '<id>',
  argsDescription: { id: 'the schedule id' },
  description: "Enqueue one run of a schedule's task now and print its id.",
})
export class SchedulesRunCommand extends AliasedCommand {
  constructor(
    private readonly schedules: ScheduleService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: SchedulesRunCommandOptions = {}): Promise<void> {
    try {
      const result = await this.schedules.trigger(id, { alias: aliasFlag(options) });
      this.output.line(result.id);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('that stores the schedule')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
