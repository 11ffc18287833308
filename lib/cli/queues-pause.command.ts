import { SubCommand, CommandRunner } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import { BackendOption, parseBackendOption } from './backend-option';
import { CommandOutputWriter } from './command-output.writer';
import { queuePaused } from '../core/control.messages';
import { QueueService } from '../queue/queue.service';

/** The `queues pause` options as commander hands them over. */
export interface QueuesPauseCommandOptions {
  backend?: string;
}

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
export class QueuesPauseCommand extends CommandRunner {
  constructor(
    private readonly queues: QueueService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([queue]: string[], options: QueuesPauseCommandOptions = {}): Promise<void> {
    try {
      await this.queues.pause(queue, { backend: options.backend });
    } catch (error) {
      return this.output.refused(error);
    }
    this.output.line(queuePaused(queue, options.backend ?? this.backends.defaultAlias));
  }

  @BackendOption('of the queue')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }
}
