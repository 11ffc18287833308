import { Command } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { TaskService } from '../task/task.service';
import { CommandOutputWriter } from './command-output.writer';

/** The `result` options as commander hands them over. */
export type ResultCommandOptions = AliasFlags;

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
export class ResultCommand extends AliasedCommand {
  constructor(
    private readonly tasks: TaskService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: ResultCommandOptions = {}): Promise<void> {
    try {
      const result = await this.tasks.getResult(id, aliasFlag(options));
      this.output.line(JSON.stringify(result, null, 2));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('the task was enqueued on')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
