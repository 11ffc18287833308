import { isRetry } from '../../core/retry-policy';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { ParentChannel, Settled } from '../worker-ipc';

/**
 * What a child tells its pool of its work, for the pool's counts and summary:
 * how many tasks it settled SUCCESSFUL and FAILED since the last report, sent
 * at most once per period (a message per batch would wake the pool for every
 * one), and once more before the child exits.
 *
 * @internal
 */
export class ProgressReport {
  private counts: Settled = { succeeded: 0, failed: 0 };
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly channel: ParentChannel,
    private readonly periodMs: number,
  ) {}

  /** A batch left the child's hands; a retried task is neither done nor failed: it runs again. */
  count(batch: readonly TaskRecord[]): void {
    let { succeeded, failed } = this.counts;
    for (const record of batch) {
      if (isRetry(record)) continue;
      if (record.status === TaskResultStatus.FAILED) failed++;
      else succeeded++;
    }
    this.counts = { succeeded, failed };
    this.timer ??= setTimeout(() => void this.send(), this.periodMs);
  }

  /** Sends what was counted since the last report, if anything. */
  async send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const counts = this.counts;
    if (counts.succeeded + counts.failed === 0) return;
    this.counts = { succeeded: 0, failed: 0 };
    await this.channel.send({ kind: 'settled', ...counts });
  }
}
