import { Injectable } from '@nestjs/common';

import { usageLine } from '../core/worker.messages';
import { ExitCode } from './exit-code';

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
}
