import type { TaskBackend } from '../../core/task-backend.interface';
import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { holdsLease } from '../../core/holds-lease';

/** A task the child runs, as the lease check sees it. */
export interface RunningTask {
  readonly record: TaskRecord;
  /** When it started (epoch ms). */
  readonly since: number;
}

export interface LeaseCheckDeps {
  readonly backend: TaskBackend;
  /** Period of the check; tasks running at least this long are looked up. */
  readonly everyMs: number;
  /** The tasks running now, by id. */
  readonly running: () => ReadonlyMap<string, RunningTask>;
  /** The lease of `id` is gone: `status` is what the store has instead. */
  readonly leaseGone: (id: string, status: string) => void;
}

/**
 * A task that never settles keeps its slot, and would keep a graceful stop
 * or a recycle waiting forever. Once the reaper took its lease back (it is
 * FAILED with AcknowledgementTimeout, retried, or gone) nothing it returns
 * can be stored any more: this check finds such tasks, so the child frees
 * their slots and no longer counts them as held.
 *
 * @internal
 */
export class LeaseCheck {
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(private readonly deps: LeaseCheckDeps) {}

  /** A child's check, when it has a period (else null). */
  static of(
    child: { backend: TaskBackend; leaseCheckMs?: number },
    running: LeaseCheckDeps['running'],
    leaseGone: LeaseCheckDeps['leaseGone'],
  ): LeaseCheck | null {
    const { backend, leaseCheckMs } = child;
    if (leaseCheckMs === undefined) return null;
    return new LeaseCheck({ backend, everyMs: leaseCheckMs, running, leaseGone });
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.deps.everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const cutoff = Date.now() - this.deps.everyMs;
      const suspects = [...this.deps.running()]
        .filter(([, task]) => task.since < cutoff)
        .map(([id]) => id);
      for (const id of suspects) {
        const stored = await this.deps.backend.tasks.getResult(id).then(
          (record): TaskRecord | null => record,
          (error: unknown) => (error instanceof TaskResultDoesNotExist ? null : undefined),
        );
        // undefined: the store did not answer; look again next time.
        if (stored === undefined) continue;
        const held = this.deps.running().get(id)?.record;
        // Still this child's lease: RUNNING in the same attempt (not retried and taken by another worker).
        const ours = stored !== null && held !== undefined && holdsLease(stored, held);
        if (!ours) this.deps.leaseGone(id, stored?.status ?? 'expired');
      }
    } finally {
      this.checking = false;
    }
  }
}
