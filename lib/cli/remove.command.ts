import { Command, Option } from 'nest-commander';

import { CommandOutputWriter } from './command-output.writer';
import { notRemoved } from '../core/control.messages';
import { TaskControlService } from '../task/task-control.service';
import { finishedTarget, type FinishedFilterOptions } from './finished-filter-options';
import { FinishedTasksCommand } from './finished-tasks.command';
import { aliasFlag } from './alias-flag';

/** The `remove` options as commander hands them over. */
export type RemoveCommandOptions = FinishedFilterOptions;

/**
 * `threadmill remove <id>`: delete a final task's record and history entry
 * and print `{ outcome }` as JSON; exit 1 when it has not finished (cancel
 * it first) or does not exist. With `--queue` and `--status` instead of an
 * id, removes those tasks in batches and prints `{ "removed": n }`.
 *
 * @internal
 */
@Command({
  name: 'remove',
  arguments: '[id]',
  argsDescription: { id: 'a result id as enqueue printed it' },
  description: 'Delete a finished task (or all of a queue in one status) and its history entry.',
})
export class RemoveCommand extends FinishedTasksCommand {
  constructor(
    private readonly control: TaskControlService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: RemoveCommandOptions = {}): Promise<void> {
    try {
      const target = finishedTarget('remove', id, options);
      const on = { alias: aliasFlag(options) };
      if ('filter' in target) {
        const removed = await this.control.removeAll(target.filter, on);
        return this.output.line(JSON.stringify({ removed }));
      }
      const outcome = await this.control.remove(target.id, on);
      this.output.line(JSON.stringify({ outcome }));
      if (outcome !== 'removed') this.output.failure(notRemoved(target.id, outcome));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @Option({
    flags: '--status <status>',
    description: 'With --queue: FAILED, CANCELLED or SUCCESSFUL.',
  })
  parseStatus(value: string): 'FAILED' | 'CANCELLED' | 'SUCCESSFUL' {
    return this.oneOf(value, ['FAILED', 'CANCELLED', 'SUCCESSFUL'] as const);
  }
}
