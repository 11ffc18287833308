import { Command } from 'nest-commander';

import { CommandOutputWriter } from './command-output.writer';
import { scheduleSubcommandMissing } from '../schedule/schedule.messages';
import { SchedulesAddCommand } from './schedules-add.command';
import { SchedulesListCommand } from './schedules-list.command';
import { SchedulesRemoveCommand } from './schedules-remove.command';
import { SchedulesRunCommand } from './schedules-run.command';
import { ParentCommand } from './parent-command';

/**
 * `threadmill schedules <list|add|remove|run>`: manage the schedules stored
 * in a backend. Alone, a usage error naming the subcommands.
 *
 * @internal
 */
@Command({
  name: 'schedules',
  description: 'Manage schedules: list, add, remove, run.',
  subCommands: [
    SchedulesListCommand,
    SchedulesAddCommand,
    SchedulesRemoveCommand,
    SchedulesRunCommand,
  ],
})
export class SchedulesCommand extends ParentCommand {
  constructor(output: CommandOutputWriter) {
    super(output, 'schedules', ['list', 'add', 'remove', 'run']);
  }

  protected async runAlone(): Promise<void> {
    this.output.usageError(scheduleSubcommandMissing(['list', 'add', 'remove', 'run']));
  }
}
