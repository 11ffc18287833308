import { CommandRunner, SubCommand } from 'nest-commander';

import { BackendOption, parseBackendOption } from './backend-option';
import { CommandOutputWriter } from './command-output.writer';
import { ScheduleService } from '../schedule/schedule.service';

/** The `schedules run` options as commander hands them over. */
export interface SchedulesRunCommandOptions {
  backend?: string;
}

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
export class SchedulesRunCommand extends CommandRunner {
  constructor(
    private readonly schedules: ScheduleService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: SchedulesRunCommandOptions = {}): Promise<void> {
    try {
      const result = await this.schedules.trigger(id, { backend: options.backend });
      this.output.line(result.id);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @BackendOption('that stores the schedule')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }
}
