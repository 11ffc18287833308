import { Injectable } from '@nestjs/common';

import { usageLine } from '../core/worker.messages';

/** Exit code of a command line that names a bad value (commander uses 1 for everything). */
export const USAGE_EXIT_CODE = 2;

/**
 * Where the commands print: results to stdout, usage errors to stderr with
 * exit code 2. A provider, so a test (or an app with its own output) can
 * replace it instead of capturing the process streams.
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
    process.exitCode = USAGE_EXIT_CODE;
  }

  /** A failure that is not about the command line (e.g. an unknown result id): exit code 1. */
  failure(message: string): void {
    process.stderr.write(usageLine(message));
    process.exitCode = 1;
  }
}
