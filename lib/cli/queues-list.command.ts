import { Option, SubCommand } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { QueueService } from '../queue/queue.service';
import { queueTable } from './queue-table';

/** The `queues list` options as commander hands them over. */
export interface QueuesListCommandOptions extends AliasFlags {
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
export class QueuesListCommand extends AliasedCommand {
  constructor(
    private readonly queues: QueueService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(_args: string[], options: QueuesListCommandOptions = {}): Promise<void> {
    try {
      const queues = await this.queues.list({ alias: aliasFlag(options) });
      if (options.json) this.output.line(JSON.stringify(queues, null, 2));
      else for (const line of queueTable(queues)) this.output.line(line);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('whose queues are listed')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }

  @Option({ flags: '--json', description: 'Print JSON (an array, one object per queue).' })
  parseJson(): boolean {
    return true;
  }
}
