import { CommandRunner } from 'nest-commander';

import type { CommandOutputWriter } from './command-output.writer';
import { unknownSubcommand } from './command.messages';

/**
 * A command with subcommands (`queues`, `schedules`): a word after it that
 * names none of them is a usage error (exit 2), never the command alone
 * with a stray argument.
 *
 * @internal
 */
export abstract class ParentCommand extends CommandRunner {
  protected constructor(
    protected readonly output: CommandOutputWriter,
    private readonly parentName: string,
    /** Its subcommands' names, as their decorators give them. */
    private readonly subcommands: readonly string[],
  ) {
    super();
  }

  async run(passed: string[]): Promise<void> {
    if (passed.length === 0) return this.runAlone();
    this.output.usageError(unknownSubcommand(this.parentName, passed[0], this.subcommands));
  }

  /** What the command does without a subcommand. */
  protected abstract runAlone(): Promise<void>;
}
