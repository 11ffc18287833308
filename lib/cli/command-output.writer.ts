import { Injectable } from '@nestjs/common';

import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { UnknownBackendError } from '../core/errors/unknown-backend.error';
import { UnknownQueueError } from '../core/errors/unknown-queue.error';
import { UnknownScheduleError } from '../core/errors/unknown-schedule.error';
import { ExitCode } from '../core/exit-code';
import { usageLine } from './command.messages';

type ErrorClass = abstract new (...args: never[]) => Error;

/** What a command line can name wrong (a task, queue, alias or option): exit code 2. */
const USAGE_ERRORS: readonly ErrorClass[] = [
  InvalidTaskError,
  InvalidCommandOptionError,
  UnknownBackendError,
  UnknownQueueError,
];

/** What a command line can name that is not stored (a result, a schedule): exit code 1. */
const MISSING_ERRORS: readonly ErrorClass[] = [TaskResultDoesNotExist, UnknownScheduleError];

/**
 * Where the commands print: results to stdout, errors to stderr with the exit
 * code of the table in ExitCode. A provider, so a test (or an app with its own
 * output) can replace it instead of capturing the process streams.
 *
 * @internal
 */
@Injectable()
export class CommandOutputWriter {
  /** One line of a command's result on stdout. */
  line(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  /** A usage error: `error: <message>` on stderr and exit code 2 once the command returns. */
  usageError(message: string): void {
    process.stderr.write(usageLine(message));
    process.exitCode = ExitCode.Usage;
  }

  /** A failure that is not about the command line (e.g. an unknown result id): exit code 1. */
  failure(message: string): void {
    process.stderr.write(usageLine(message));
    process.exitCode = ExitCode.Failure;
  }

  /**
   * An outcome that is neither success nor a mistake (a waited-for task
   * that failed, was cancelled or was not final in time): its code of the
   * table, and a line on stderr when there is something to say.
   */
  outcome(code: ExitCode, message?: string): void {
    if (message !== undefined) process.stderr.write(usageLine(message));
    process.exitCode = code;
  }

  /**
   * Reports an error a command expects, the same way for every command: what
   * its command line named wrong as a usage error, what it named that is not
   * stored as a failure. Anything else is rethrown, for the CLI to report as
   * a failure (a store that does not answer, a bug).
   */
  refused(error: unknown): void {
    if (!(error instanceof Error)) throw error;
    if (USAGE_ERRORS.some((type) => error instanceof type)) return this.usageError(error.message);
    if (MISSING_ERRORS.some((type) => error instanceof type)) return this.failure(error.message);
    throw error;
  }
}
