import { Option } from 'nest-commander';

import { AliasFlag, parseAliasFlag, AliasedCommand } from './alias-flag';
import { parseName } from './parse-option.util';
import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import type { FinishedTaskFilter } from '../task/task-control.service';
import { invalidOptionValue } from './command.messages';

/**
 * The options `retry` and `remove` share, which name one final task by id
 * or, in bulk, the final tasks of a queue in one status (see finishedTarget).
 * Each command declares `--status` itself, with the statuses it takes.
 *
 * @internal
 */
export abstract class FinishedTasksCommand extends AliasedCommand {
  @Option({
    flags: '--queue <queue>',
    description: 'Instead of one id: every task of this queue in the --status given.',
  })
  parseQueue(value: string): string {
    return parseName('--queue', value);
  }

  @Option({ flags: '--task <name>', description: 'With --queue: only tasks of this name.' })
  parseTask(value: string): string {
    return parseName('--task', value);
  }

  @AliasFlag('the task was enqueued on')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }

  /** `value` when it is one of `statuses`; the command line is wrong otherwise. */
  protected oneOf<S extends FinishedTaskFilter['status']>(
    value: string,
    statuses: readonly S[],
  ): S {
    const status = statuses.find((candidate) => candidate === value);
    if (status !== undefined) return status;
    const list = `${statuses.slice(0, -1).join(', ')} or ${statuses[statuses.length - 1]}`;
    throw new InvalidCommandOptionError(invalidOptionValue('--status', list));
  }
}
