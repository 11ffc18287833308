import { SubCommand, CommandRunner } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import { BackendOption, parseBackendOption } from './backend-option';
import { CommandOutputWriter } from './command-output.writer';
import { queueResumed } from '../core/control.messages';
import { QueueService } from '../queue/queue.service';

/** The `queues resume` options as commander hands them over. */
export interface QueuesResumeCommandOptions {
  backend?: string;
}

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
export class QueuesResumeCommand extends CommandRunner {
  constructor(
    private readonly queues: QueueService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([queue]: string[], options: QueuesResumeCommandOptions = {}): Promise<void> {
    try {
      await this.queues.resume(queue, { backend: options.backend });
    } catch (error) {
      return this.output.refused(error);
    }
    this.output.line(queueResumed(queue, options.backend ?? this.backends.defaultAlias));
  }

  @BackendOption('of the queue')
  parseBackend(value: string): string {
    return parseBackendOption(value);
  }
}
