import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { LoggerService } from '@nestjs/common';

import { journalDirFailed } from '../worker.messages';

/**
 * A folder of the pool's own for its children's journals, removed when the
 * pool stops. Where the temporary directory cannot be written, the children
 * cannot journal either: each says so once and works on (`whole` is false),
 * and a crashed child's tasks are then found by the search of the running
 * tasks (or the lease reaper).
 *
 * @internal
 */
export class JournalFolder {
  /** False when the folder could not be made: no child's journal can be relied on. */
  readonly whole: boolean;
  private readonly path: string;
  private files = 0;

  constructor(root: string | undefined, logger: LoggerService) {
    const parent = root ?? tmpdir();
    const base = join(parent, 'threadmill-pool-');
    let path = `${base}${process.pid}`;
    let whole = true;
    try {
      path = mkdtempSync(base);
    } catch (error) {
      logger.error(journalDirFailed(parent, error));
      whole = false;
    }
    this.path = path;
    this.whole = whole;
  }

  /** The journal file of the next child started. */
  next(): string {
    return join(this.path, `child-${++this.files}.held`);
  }

  remove(): void {
    try {
      rmSync(this.path, { recursive: true, force: true });
    } catch {
      // It could not be made in the first place, so it holds nothing.
    }
  }
}
