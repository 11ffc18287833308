import { Command, CommandRunner } from 'nest-commander';

import { BackendOption, parseBackendOption } from './backend-option';
import { TaskService } from '../task/task.service';
import { CommandOutputWriter } from './command-output.writer';

/** The `result` options as commander hands them over. */
export interface ResultCommandOptions {
  backend?: string;
}

/**
 * `threadmill result <id>`: print a task's current TaskResult as JSON; exit 1
 * when no such task exists (never enqueued, or expired after resultTtl).
 *
 * @internal
 */
@Command({
  name: 'result',
  arguments: '<id>',
  argsDescription: { id: 'a result id as enqueue printed it' },
  description: 'Print the TaskResult of a task as JSON.',
})
export class ResultCommand extends CommandRunner {
  constructor(
    private readonly tasks: TaskService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: ResultCommandOptions = {}): Promise<void> {
    try {
      const result = await this.tasks.getResult(id, options.backend);
      this.output.line(JSON.stringify(result, null, 2));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @BackendOption('the task was enqueued on')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }
}
