import { Option, SubCommand, CommandRunner } from 'nest-commander';

import { BackendOption, parseBackendOption } from './backend-option';
import { CommandOutputWriter } from './command-output.writer';
import { QueueService } from '../queue/queue.service';
import { queueTable } from './queue-table';

/** The `queues list` options as commander hands them over. */
export interface QueuesListCommandOptions {
  backend?: string;
  json?: boolean;
}

/**
 * `threadmill queues list`: every queue of a backend with its counts and
 * whether it is paused, as a table (or JSON) on stdout.
 *
 * @internal
 */
@SubCommand({
  name: 'list',
  description: 'Print every queue of a backend with its counts and state (active or paused).',
})
export class QueuesListCommand extends CommandRunner {
  constructor(
    private readonly queues: QueueService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(_args: string[], options: QueuesListCommandOptions = {}): Promise<void> {
    try {
      const queues = await this.queues.list({ backend: options.backend });
      if (options.json) this.output.line(JSON.stringify(queues, null, 2));
      else for (const line of queueTable(queues)) this.output.line(line);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @BackendOption('whose queues are listed')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }

  @Option({ flags: '--json', description: 'Print JSON (an array, one object per queue).' })
  parseJson(): boolean {
    return true;
  }
}
