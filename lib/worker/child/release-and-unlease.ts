import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import {
  releasedOrUnleased,
  releaseFailed,
  unleaseFailed,
  type ReleaseOrUnleaseReason,
} from '../worker.messages';
import type { LeaseLedger } from './lease-ledger';

/**
 * The leases a child hands back instead of settling them: unfinished tasks
 * released on an urgent stop (READY again, the run counted), and tasks
 * that never started: prefetched ones, and batches leased after that stop
 * (unleased, no attempt counted). A failed release or unlease is logged,
 * never thrown: those tasks stay leased until their lease runs out. Each
 * is logged with its reason. A stopping child waits for `answered`.
 *
 * @internal
 */
export class ReleaseAndUnlease {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly backend: TaskBackend,
    private readonly logger: LoggerService,
    private readonly ledger: LeaseLedger,
  ) {}

  /** Resolves once every release and unlease so far has been answered. */
  get answered(): Promise<void> {
    return this.pending;
  }

  /** Unfinished tasks this child held: back in their ready queues, then out of its ledger. */
  release(records: readonly TaskRecord[], reason: ReleaseOrUnleaseReason): void {
    const ids = records.map((r) => r.id);
    this.logger.warn(releasedOrUnleased(ids, reason, true));
    this.chain(
      this.backend.leases
        .release(records)
        .catch((error: unknown) => {
          this.logger.error(releaseFailed(ids, error));
        })
        .then(() => this.ledger.forget(ids)),
    );
  }

  /**
   * Tasks that never started: back as if never leased. Those the ledger
   * holds (prefetched) leave it first: this child may lease the same task
   * again as soon as it is back, and that lease must not be forgotten by a
   * late answer. Should this process die before the answer, the pool finds
   * the lease under its worker ids, not in its journal, and gives it back.
   */
  unlease(records: readonly TaskRecord[], reason: ReleaseOrUnleaseReason): void {
    const ids = records.map((r) => r.id);
    this.logger.log(releasedOrUnleased(ids, reason, false));
    this.ledger.forget(ids);
    this.chain(
      this.backend.leases.unlease(records).then(
        (): void => undefined,
        (error: unknown): void => {
          this.logger.error(unleaseFailed(ids, error));
        },
      ),
    );
  }

  private chain(step: Promise<void>): void {
    this.pending = this.pending.then(() => step);
  }
}
