import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { HeldJournal, type JournalHolding } from '../../lib/worker/held-journal';

/** A real HeldJournal in a folder of its own, for tests of the child and the pool. */
export class TempJournal {
  readonly dir = mkdtempSync(join(tmpdir(), 'threadmill-journal-'));
  readonly path = join(this.dir, 'child.held');
  private opened: HeldJournal | null = null;

  /** The child's side (opened on first use). */
  get journal(): HeldJournal {
    this.opened ??= new HeldJournal(this.path);
    return this.opened;
  }

  /** What the pool would read once the child wrote its waiting lines (a release waits for the next write). */
  held(): string[] {
    this.opened?.flush();
    return HeldJournal.read(this.path).sort();
  }

  /** As held(), with which of those ids never started (prefetched). */
  holding(): JournalHolding {
    this.opened?.flush();
    const { held, unstarted } = HeldJournal.readHolding(this.path);
    return { held: held.sort(), unstarted: unstarted.sort() };
  }

  close(): void {
    this.opened?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
