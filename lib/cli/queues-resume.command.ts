import { SubCommand } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { queueResumed } from '../core/control.messages';
import { QueueService } from '../queue/queue.service';

/** The `queues resume` options as commander hands them over. */
export type QueuesResumeCommandOptions = AliasFlags;

/**
 * `threadmill queues resume <queue>`: pools start the queue's tasks again,
 * idle workers at once.
 *
 * @internal
 */
@SubCommand({
  name: 'resume',
  arguments: '<queue>',
  argsDescription: { queue: 'a queue of the backend, e.g. emails' },
  description:
    'Let every worker pool start tasks of a paused queue again; idle workers take them at once.',
})
export class QueuesResumeCommand extends AliasedCommand {
  constructor(
    private readonly queues: QueueService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([queue]: string[], options: QueuesResumeCommandOptions = {}): Promise<void> {
    try {
      await this.queues.resume(queue, { alias: aliasFlag(options) });
    } catch (error) {
      return this.output.refused(error);
    }
    this.output.line(queueResumed(queue, aliasFlag(options) ?? this.backends.defaultAlias));
  }

  @AliasFlag('of the queue')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
