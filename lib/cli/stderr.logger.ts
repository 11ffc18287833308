import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's console logger, writing every level to stderr: a command's stdout is
 * its result (`enqueue` prints ids one a line, `result` prints JSON), so a
 * script can capture it without the boot lines.
 *
 * @publicApi
 */
export class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
