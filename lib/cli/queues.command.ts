import { Command } from 'nest-commander';

import { CommandOutputWriter } from './command-output.writer';
import { ParentCommand } from './parent-command';
import { QueuesLimitCommand } from './queues-limit.command';
import { QueuesListCommand } from './queues-list.command';
import { QueuesPauseCommand } from './queues-pause.command';
import { QueuesResumeCommand } from './queues-resume.command';

/**
 * `threadmill queues <list|pause|resume|limit>`: the queues of a backend,
 * and pausing, resuming and limiting one for every pool at once. Alone, it
 * lists them.
 *
 * @internal
 */
@Command({
  name: 'queues',
  description:
    'List the queues of a backend with their counts, state and limits, or pause, resume or limit one.',
  subCommands: [QueuesListCommand, QueuesPauseCommand, QueuesResumeCommand, QueuesLimitCommand],
})
export class QueuesCommand extends ParentCommand {
  constructor(
    private readonly list: QueuesListCommand,
    output: CommandOutputWriter,
  ) {
    super(output, 'queues', ['list', 'pause', 'resume', 'limit']);
  }

  protected async runAlone(): Promise<void> {
    await this.list.run([], {});
  }
}
