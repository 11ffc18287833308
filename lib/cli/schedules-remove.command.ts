import { SubCommand } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { scheduleNotFound } from '../schedule/schedule.messages';
import { BackendRegistry } from '../backends/backend.registry';
import { ScheduleService } from '../schedule/schedule.service';

/** The `schedules remove` options as commander hands them over. */
export type SchedulesRemoveCommandOptions = AliasFlags;

/**
 * `threadmill schedules remove <id>`: remove a schedule; exit 1 when none has
 * the id. A declared one comes back when a pool next starts with it in the code.
 *
 * @internal
 */
@SubCommand({
  name: 'remove',
  arguments: '<id>',
  argsDescription: { id: 'the schedule id' },
  description: 'Remove a schedule.',
})
export class SchedulesRemoveCommand extends AliasedCommand {
  constructor(
    private readonly schedules: ScheduleService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: SchedulesRemoveCommandOptions = {}): Promise<void> {
    try {
      if (await this.schedules.remove(id, { alias: aliasFlag(options) })) {
        return this.output.line(id);
      }
      const alias = aliasFlag(options) ?? this.backends.defaultAlias;
      this.output.failure(scheduleNotFound(id, alias));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('that stores the schedule')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
