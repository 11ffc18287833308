import { Option, SubCommand } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { parseWholeNumber } from './parse-option.util';
import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import type { QueueLimits, QueueRateLimit } from '../core/queue-limits';
import { limitOptionsMissing, queueLimitsSet } from '../core/control.messages';
import { QueueService } from '../queue/queue.service';
import { invalidOptionValue } from './command.messages';

/** The `queues limit` options as commander hands them over. */
export interface QueuesLimitCommandOptions extends AliasFlags {
  concurrency?: number;
  rate?: QueueRateLimit;
  clear?: boolean;
}

/**
 * `threadmill queues limit <queue>`: sets the queue's limits for every pool
 * of the backend (the ones given replace what was set), or lifts them.
 *
 * @internal
 */
@SubCommand({
  name: 'limit',
  arguments: '<queue>',
  argsDescription: { queue: 'a queue of the backend, e.g. emails' },
  description:
    'Limit how many tasks of a queue run at once and start per window across every worker pool, or lift its limits.',
})
export class QueuesLimitCommand extends AliasedCommand {
  constructor(
    private readonly queues: QueueService,
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([queue]: string[], options: QueuesLimitCommandOptions = {}): Promise<void> {
    const limits: QueueLimits = {};
    if (options.concurrency !== undefined) limits.concurrency = options.concurrency;
    if (options.rate !== undefined) limits.rateLimit = options.rate;
    const given = Object.keys(limits).length > 0;
    try {
      if (given === (options.clear === true)) {
        throw new InvalidCommandOptionError(limitOptionsMissing());
      }
      await this.queues.setLimits(queue, given ? limits : null, { alias: aliasFlag(options) });
    } catch (error) {
      this.output.refused(error);
      return;
    }
    const alias = aliasFlag(options) ?? this.backends.defaultAlias;
    this.output.line(queueLimitsSet(queue, alias, given ? limits : null));
  }

  @AliasFlag('of the queue')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }

  @Option({
    flags: '--concurrency <n>',
    description: 'Most tasks of the queue running at once across every pool.',
  })
  parseConcurrency(value: string): number {
    return parseWholeNumber('--concurrency', value, 1);
  }

  @Option({
    flags: '--rate <max/perMs>',
    description: 'Most starts in any window of perMs milliseconds across every pool (100/1000).',
  })
  parseRate(value: string): QueueRateLimit {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
    const max = match ? Number(match[1]) : 0;
    const perMs = match ? Number(match[2]) : 0;
    if (!Number.isSafeInteger(max) || !Number.isSafeInteger(perMs) || max < 1 || perMs < 1) {
      throw new InvalidCommandOptionError(
        invalidOptionValue('--rate', 'max/perMs, two whole numbers of at least 1, e.g. 100/1000'),
      );
    }
    return { max, perMs };
  }

  @Option({ flags: '--clear', description: "Lift the queue's limits (alone)." })
  parseClear(): boolean {
    return true;
  }
}
