import type { LoggerService } from '@nestjs/common';

import type { StoreCorruptError } from '../core/errors/store-corrupt.error';

/**
 * What a pool or a child does on a damaged store (StoreCorruptError). A
 * refused store is tried again for as long as it takes, but no retry can
 * mend a damaged one: the first such error is logged and stops the
 * process's work at once (`stop`), and the command then fails with it
 * (`rethrow`), so the process exits `ExitCode.StoreCorrupt`.
 *
 * @internal
 */
export class StoreDamage {
  private found: StoreCorruptError | null = null;

  constructor(
    private readonly logger: LoggerService,
    /** Logged on the first report; the error itself is printed when the command fails with it. */
    private readonly stopping: string,
    private readonly stop: () => void,
  ) {}

  /** Whether a damaged store was reported. */
  get reported(): boolean {
    return this.found !== null;
  }

  /** The store is damaged: the first report stops the work; later ones add nothing. */
  report(error: StoreCorruptError): void {
    if (this.found !== null) return;
    this.found = error;
    this.logger.error(this.stopping);
    this.stop();
  }

  /** Throws the reported error, if any, for the command to exit with. */
  rethrow(): void {
    if (this.found !== null) throw this.found;
  }
}
