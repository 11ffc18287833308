import { Logger } from '@nestjs/common';
import { Command, Option } from 'nest-commander';

import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { ExitCode } from '../core/exit-code';
import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import { TaskWaitTimeoutError } from '../core/errors/task-wait-timeout.error';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { enqueuedUnregistered } from '../task/task-name.messages';
import type { EnqueuedTaskResult } from '../core/enqueued-task-result';
import { timeoutNeedsWait, waitNeedsOneTask } from './command.messages';
import { MAX_DELAY_MS, PRIORITY_MAX, PRIORITY_MIN } from '../core/threadmill.constants';
import type { TaskOverrides } from '../core/task-options.interface';
import { TaskService } from '../task/task.service';
import { CommandOutputWriter } from './command-output.writer';
import {
  parseIsoDate,
  parseJsonArray,
  parseName,
  parseWholeNumber,
  parseWholeNumberInRange,
} from './parse-option.util';

/** The `enqueue` options as commander hands them over. */
export interface EnqueueCommandOptions extends AliasFlags {
  args?: unknown[];
  priority?: number;
  queue?: string;
  runAfter?: Date;
  delay?: number;
  count?: number;
  key?: string;
  wait?: boolean;
  timeout?: number;
}

/** The exit code of a waited-for task's final status. */
const FINAL_EXIT_CODES: Partial<Record<TaskResultStatus, ExitCode>> = {
  [TaskResultStatus.SUCCESSFUL]: ExitCode.Success,
  [TaskResultStatus.FAILED]: ExitCode.TaskFailed,
  [TaskResultStatus.CANCELLED]: ExitCode.TaskCancelled,
};

/**
 * `threadmill enqueue <task>`: enqueue a task by its stable name and print
 * the new result ids, one a line. A name this app does not register is
 * stored all the same, for the worker that does, with a warning. `--count N` stores N copies in one
 * bulk call (for drains and load tests). With `--key`, a task that holds the
 * key is printed instead of a new one. With `--wait`, it waits for the task
 * to be final, prints its result as JSON and exits with the code of its
 * status (ExitCode: 0, TaskFailed, TaskCancelled, or WaitTimedOut after `--timeout`).
 *
 * @internal
 */
@Command({
  name: 'enqueue',
  arguments: '<task>',
  argsDescription: {
    task: 'the stable name of a @Task, e.g. sample.echo (registered here or by the worker that runs it)',
  },
  description: 'Enqueue a task by name and print the new result id(s).',
})
export class EnqueueCommand extends AliasedCommand {
  private readonly logger = new Logger('Enqueue');

  constructor(
    private readonly tasks: TaskService,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run([name]: string[], options: EnqueueCommandOptions = {}): Promise<void> {
    const argsList = Array.from({ length: options.count ?? 1 }, () => options.args ?? []);
    try {
      const overrides: TaskOverrides = {
        priority: options.priority,
        queue: options.queue,
        runAfter: options.runAfter,
        delayMs: options.delay,
        key: options.key,
        alias: aliasFlag(options),
      };
      if (options.timeout !== undefined && !options.wait) {
        throw new InvalidCommandOptionError(timeoutNeedsWait());
      }
      if (options.wait && argsList.length > 1) {
        throw new InvalidCommandOptionError(waitNeedsOneTask(argsList.length));
      }
      const results = await this.tasks.enqueueByName(name, argsList, withoutUndefined(overrides));
      if (!this.tasks.isRegistered(name)) this.logger.warn(enqueuedUnregistered(name));
      if (options.wait) return await this.waitFor(results[0], options.timeout);
      for (const result of results) this.output.line(result.id);
    } catch (error) {
      return this.output.refused(error);
    }
  }

  /** Prints the task's result once final (or as it stands at the timeout) with its exit code. */
  private async waitFor(result: EnqueuedTaskResult, timeoutMs: number | undefined): Promise<void> {
    try {
      await result.wait(timeoutMs === undefined ? {} : { timeoutMs });
    } catch (error) {
      if (!(error instanceof TaskWaitTimeoutError)) throw error;
      this.output.line(JSON.stringify(error.record, null, 2));
      return this.output.outcome(ExitCode.WaitTimedOut, error.message);
    }
    this.output.line(JSON.stringify(result, null, 2));
    this.output.outcome(FINAL_EXIT_CODES[result.status] ?? ExitCode.Failure);
  }

  @Option({ flags: '--args <json>', description: 'The arguments as a JSON array. Default: [].' })
  parseArgs(value: string): unknown[] {
    return parseJsonArray('--args', value);
  }

  @Option({
    flags: '--priority <n>',
    description: `Whole number from ${PRIORITY_MIN} to ${PRIORITY_MAX}; higher runs first. Default: the task's.`,
  })
  parsePriority(value: string): number {
    return parseWholeNumberInRange('--priority', value, PRIORITY_MIN, PRIORITY_MAX);
  }

  @Option({ flags: '--queue <queue>', description: "Queue to enqueue on. Default: the task's." })
  parseQueue(value: string): string {
    return parseName('--queue', value);
  }

  @Option({
    flags: '--run-after <iso>',
    description: 'Earliest run time, ISO 8601 with a zone (2030-01-01T12:00:00Z).',
  })
  parseRunAfter(value: string): Date {
    return parseIsoDate('--run-after', value);
  }

  @Option({
    flags: '--delay <ms>',
    description:
      "Run no earlier than this many ms from now, counted on the store's clock (instead of --run-after).",
  })
  parseDelay(value: string): number {
    return parseWholeNumberInRange('--delay', value, 0, MAX_DELAY_MS);
  }

  @Option({
    flags: '--count <n>',
    description: 'Enqueue this many copies in one bulk call. Default: 1.',
  })
  parseCount(value: string): number {
    return parseWholeNumber('--count', value, 1);
  }

  @Option({
    flags: '--key <key>',
    description:
      "Unique key: while a task with it is unfinished, print that task's id instead of making one.",
  })
  parseKey(value: string): string {
    return parseName('--key', value);
  }

  @Option({
    flags: '--wait',
    description:
      'Wait until the task is final, print its result as JSON and exit 0 (SUCCESSFUL), 3 (FAILED) or 4 (CANCELLED).',
  })
  parseWait(): boolean {
    return true;
  }

  @Option({
    flags: '--timeout <ms>',
    description: 'With --wait: give up after this many ms, print the task as it stands and exit 5.',
  })
  parseTimeout(value: string): number {
    return parseWholeNumber('--timeout', value, 1);
  }

  @AliasFlag('', "the task's")
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}

/** Overrides with only the keys the caller set, so the task's own options fill the rest. */
function withoutUndefined(overrides: TaskOverrides): TaskOverrides {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}
