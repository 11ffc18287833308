import { Command, Option } from 'nest-commander';

import { CommandOutputWriter } from './command-output.writer';
import { notRetried } from '../core/control.messages';
import { TaskControlService } from '../task/task-control.service';
import { finishedTarget, type FinishedFilterOptions } from './finished-filter-options';
import { FinishedTasksCommand } from './finished-tasks.command';
import { aliasFlag } from './alias-flag';

/** The `retry` options as commander hands them over. */
export type RetryCommandOptions = FinishedFilterOptions;

/**
 * `threadmill retry <id>`: send a FAILED or CANCELLED task back as a new
 * attempt and print `{ outcome, result }` as JSON; exit 1 when it was not
 * retried (not finished, or successful) or does not exist. With `--queue`
 * and `--status` instead of an id, retries those tasks in batches and
 * prints `{ "retried": n }`.
 *
 * @internal
 */
@Command({
  name: 'retry',
  arguments: '[id]',
  argsDescription: { id: 'a result id as enqueue printed it' },
  description: 'Send a FAILED or CANCELLED task (or all of a queue) back as a new attempt.',
})
export class RetryCommand extends FinishedTasksCommand {
  constructor(
    private readonly control: TaskControlService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: RetryCommandOptions = {}): Promise<void> {
    try {
      const target = finishedTarget('retry', id, options);
      const on = { alias: aliasFlag(options) };
      if ('filter' in target) {
        const retried = await this.control.retryAll(target.filter, on);
        return this.output.line(JSON.stringify({ retried }));
      }
      const { outcome, result } = await this.control.retry(target.id, on);
      this.output.line(JSON.stringify({ outcome, result }, null, 2));
      if (outcome !== 'retried') this.output.failure(notRetried(target.id, outcome));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @Option({ flags: '--status <status>', description: 'With --queue: FAILED or CANCELLED.' })
  parseStatus(value: string): 'FAILED' | 'CANCELLED' {
    return this.oneOf(value, ['FAILED', 'CANCELLED'] as const);
  }
}
