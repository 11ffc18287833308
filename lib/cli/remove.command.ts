import { Command, CommandRunner, Option } from 'nest-commander';

import { BackendOption, parseBackendOption } from '../command/backend-option';
import { CommandOutputWriter } from '../command/command-output.writer';
import { parseName } from '../command/parse-option.util';
import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import { notRemoved } from '../core/control.messages';
import { invalidOptionValue } from '../core/worker.messages';
import { TaskControlService } from '../task/task-control.service';
import { finishedTarget, type FinishedFilterOptions } from './finished-filter-options';

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
export class RemoveCommand extends CommandRunner {
  constructor(
    private readonly control: TaskControlService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([id]: string[], options: RemoveCommandOptions = {}): Promise<void> {
    try {
      const target = finishedTarget('remove', id, options);
      const backend = { backend: options.backend };
      if ('filter' in target) {
        const removed = await this.control.removeAll(target.filter, backend);
        return this.output.line(JSON.stringify({ removed }));
      }
      const outcome = await this.control.remove(target.id, backend);
      this.output.line(JSON.stringify({ outcome }));
      if (outcome !== 'removed') this.output.failure(notRemoved(target.id));
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @Option({
    flags: '--queue <queue>',
    description: 'Remove every task of this queue instead of one id.',
  })
  parseQueue(value: string): string {
    return parseName('--queue', value);
  }

  @Option({
    flags: '--status <status>',
    description: 'With --queue: FAILED, CANCELLED or SUCCESSFUL.',
  })
  parseStatus(value: string): 'FAILED' | 'CANCELLED' | 'SUCCESSFUL' {
    if (value === 'FAILED' || value === 'CANCELLED' || value === 'SUCCESSFUL') return value;
    throw new InvalidCommandOptionError(
      invalidOptionValue('--status', 'FAILED, CANCELLED or SUCCESSFUL'),
    );
  }

  @Option({ flags: '--task <name>', description: 'With --queue: only tasks of this name.' })
  parseTask(value: string): string {
    return parseName('--task', value);
  }

  @BackendOption('the task was enqueued on')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }
}
