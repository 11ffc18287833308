import type { LoggerService } from '@nestjs/common';

import { heldJournalFailed } from '../worker.messages';
import type { HeldJournal } from '../held-journal';

/**
 * The leases a child holds: every task it leased and has not yet settled
 * (acknowledged, retried), released or abandoned. Kept in memory for the
 * orphan search, and in the HeldJournal for the pool, which reads it if this
 * process dies. A journal that cannot be written (a full disk) must not stop
 * the work: the tasks stay leased, and if this process dies the pool's search
 * of the running tasks and the lease reaper still find them. Said once. With
 * no journal (the in-process worker, whose process is its own pool) only
 * memory keeps them: a death there is recovered through the pool's heartbeat.
 *
 * @internal
 */
export class LeaseLedger {
  private readonly held = new Set<string>();
  private failed = false;

  constructor(
    private readonly journal: HeldJournal | null,
    private readonly logger: LoggerService,
    /** The journal failed (once): the pool must be told it can no longer rely on it. */
    private readonly journalFailed: () => void = () => undefined,
  ) {}

  has(id: string): boolean {
    return this.held.has(id);
  }

  /**
   * Leased, `ids` to start now and `waiting` later (prefetched): written
   * before any of them starts, so a task that kills the process is not forgotten.
   */
  hold(ids: readonly string[], waiting: readonly string[] = []): void {
    for (const id of ids) this.held.add(id);
    for (const id of waiting) this.held.add(id);
    this.write((journal) => journal.hold(ids, waiting));
  }

  /** Prefetched tasks about to start: written first, so the pool never takes them for unstarted. */
  started(ids: readonly string[]): void {
    this.write((journal) => journal.started(ids));
  }

  /** No longer this child's: settled, released or abandoned. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.held.delete(id);
    this.write((journal) => journal.forget(ids));
  }

  private write(change: (journal: HeldJournal) => void): void {
    if (this.journal === null) return;
    try {
      change(this.journal);
    } catch (error) {
      if (this.failed) return;
      this.failed = true;
      this.logger.error(heldJournalFailed(error));
      this.journalFailed();
    }
  }
}
