import type { LogLevel } from '@nestjs/common';

import { StderrLogger } from './stderr.logger';

type Print = () => void;

/**
 * The CLI's logger: StderrLogger, which can hold what it prints while a boot
 * may be tried again another way, then print it or drop it.
 *
 * @internal
 */
export class CliLogger extends StderrLogger {
  private held: Print[] | null = null;

  /** From now on keeps every line instead of printing it. */
  hold(): void {
    this.held = [];
  }

  /** Prints the lines held, and prints from now on. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const print of held) print();
  }

  /** Forgets the lines held (a boot that is tried again prints its own), and prints from now on. */
  drop(): void {
    this.held = null;
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    const print = (): void =>
      super.printMessages(messages, context, logLevel, writeStreamType, errorStack);
    if (this.held) this.held.push(print);
    else print();
  }
}
