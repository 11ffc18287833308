import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import { orphanedLeasesUnleased, orphanSearchFailed } from '../worker.messages';
import { leasesUnder } from '../leases-under';
import type { LeaseLedger } from './lease-ledger';

export interface OrphanSearchDeps {
  readonly backend: TaskBackend;
  readonly queues: readonly string[];
  /** `host:pid`, the prefix of every worker id of this child. */
  readonly identity: string;
  readonly ledger: LeaseLedger;
  readonly logger: LoggerService;
}

/**
 * After a failed acquire, Redis may have run it and lost only the reply, so
 * tasks may be leased to this child's slots that it never received. They
 * never started, so they go back to their queue at their place as if never
 * leased (unlease: no attempt counted) instead of waiting for the reaper. The search must run between
 * acquires (the child starts none while it runs): then every lease of this
 * child's that its ledger does not hold is such an orphan.
 *
 * @internal
 */
export class OrphanSearch {
  /** An acquire failed since the last search. */
  private possible = false;
  /** The search under way, shared by every lane that needs it. */
  private running: Promise<boolean> | null = null;

  constructor(private readonly deps: OrphanSearchDeps) {}

  /** Whether a search is due before the next acquire. */
  get due(): boolean {
    return this.possible;
  }

  /** The search under way, if any. */
  get underWay(): Promise<boolean> | null {
    return this.running;
  }

  /** An acquire failed: leases may have been made whose reply never arrived. */
  acquireFailed(): void {
    this.possible = true;
  }

  /** Runs the search once for all lanes; true when it ran (the store answered). */
  run(): Promise<boolean> {
    this.running ??= this.search().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async search(): Promise<boolean> {
    const { backend, queues, identity, ledger, logger } = this.deps;
    const prefix = `${identity}-`;
    try {
      const leased = await leasesUnder(backend, queues, prefix);
      const orphans = leased.filter((record) => !ledger.has(record.id));
      if (orphans.length > 0) {
        const unleased = await backend.leases.unlease(orphans);
        logger.warn(orphanedLeasesUnleased(unleased, backend.alias));
      }
      this.possible = false;
      return true;
    } catch (error) {
      logger.error(orphanSearchFailed(backend.alias, error));
      return false;
    }
  }
}
