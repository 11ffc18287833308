import { Command } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { TaskControlService } from '../task/task-control.service';

/** The `cancel` options as commander hands them over. */
export type CancelCommandOptions = AliasFlags;

/**
 * `threadmill cancel <id>`: cancel a task and print what happened as JSON
 * (`outcome` and the TaskResult); exit 1 when no such task exists. A
 * finished task is left alone (`already-final`), which is not a failure.
 *
 * @internal
 */
@Command({
  name: 'cancel',
  arguments: '<id>',
  argsDescription: { id: 'a result id as enqueue printed it' },
  description: 'Cancel a task: a waiting one never runs, a running one is asked to stop.',
})
export class CancelCommand extends AliasedCommand {
  constructor(
    private readonly control: TaskControlService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: CancelCommandOptions = {}): Promise<void> {
    try {
      const { outcome, result } = await this.control.cancel(id, { alias: aliasFlag(options) });
      this.output.line(JSON.stringify({ outcome, result }, null, 2));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('the task was enqueued on')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
