import { isRetry } from '../../core/retry-policy';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { ParentChannel, Settled } from '../worker-ipc';
import type { ChildMetrics } from './worker-child.deps';

/**
 * What a child tells its pool of its work, for the pool's counts and summary:
 * how many tasks it settled SUCCESSFUL and FAILED since the last report, sent
 * at most once per period (a message per batch would wake the pool for every
 * one), and once more before the child exits. With metrics on, each report
 * that follows a change of them carries their cumulative snapshot too.
 *
 * @internal
 */
export class ProgressReport {
  private counts: Settled = { succeeded: 0, failed: 0 };
  private timer: NodeJS.Timeout | null = null;
  private metricsChanged = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: ParentChannel,
    private readonly periodMs: number,
    private readonly metrics?: ChildMetrics,
  ) {
    metrics?.watch(() => {
      this.metricsChanged = true;
      this.timer ??= setTimeout(() => void this.send(), this.periodMs);
    });
  }

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

  /** Sends what was counted since the last report, if anything, after any report still under way. */
  send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // In order, so the report before exiting never overtakes (or leaves behind) a periodic one.
    this.sending = this.sending.then(() => this.sendNow());
    return this.sending;
  }

  private async sendNow(): Promise<void> {
    const counts = this.counts;
    if (counts.succeeded + counts.failed > 0) {
      this.counts = { succeeded: 0, failed: 0 };
      await this.channel.send({ kind: 'settled', ...counts });
    }
    if (this.metrics && this.metricsChanged) {
      this.metricsChanged = false;
      await this.channel.send({ kind: 'metrics', snapshot: await this.metrics.snapshot() });
    }
  }
}
