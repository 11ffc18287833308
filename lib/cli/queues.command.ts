import { Command, CommandRunner } from 'nest-commander';

import { QueuesLimitCommand } from './queues-limit.command';
import { QueuesListCommand } from './queues-list.command';
import { QueuesPauseCommand } from './queues-pause.command';
import { QueuesResumeCommand } from './queues-resume.command';

/**
 * `threadmill queues <list|pause|resume>`: the queues of a backend, and
 * pausing and resuming one for every pool at once. Alone, it lists them.
 *
 * @internal
 */
@Command({
  name: 'queues',
  description:
    'List the queues of a backend with their counts, state and limits, or pause, resume or limit one.',
  subCommands: [QueuesListCommand, QueuesPauseCommand, QueuesResumeCommand, QueuesLimitCommand],
})
export class QueuesCommand extends CommandRunner {
  constructor(private readonly list: QueuesListCommand) {
    super();
  }

  async run(): Promise<void> {
    await this.list.run([], {});
  }
}
