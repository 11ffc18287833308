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
import { queuePaused } from '../core/control.messages';
import { QueueService } from '../queue/queue.service';

/** The `queues pause` options as commander hands them over. */
export type QueuesPauseCommandOptions = AliasFlags;

/**
 * `threadmill queues pause <queue>`: no pool of the backend starts a task of
 * the queue until it is resumed; the state is stored, so a pool started later
 * keeps to it too.
 *
 * @internal
 */
@SubCommand({
  name: 'pause',
  arguments: '<queue>',
  argsDescription: { queue: 'a queue of the backend, e.g. emails' },
  description:
    'Stop every worker pool from starting tasks of a queue (running ones finish; enqueues are stored) until it is resumed.',
})
export class QueuesPauseCommand extends AliasedCommand {
  constructor(
    private readonly queues: QueueService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([queue]: string[], options: QueuesPauseCommandOptions = {}): Promise<void> {
    try {
      await this.queues.pause(queue, { alias: aliasFlag(options) });
    } catch (error) {
      return this.output.refused(error);
    }
    this.output.line(queuePaused(queue, aliasFlag(options) ?? this.backends.defaultAlias));
  }

  @AliasFlag('of the queue')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
