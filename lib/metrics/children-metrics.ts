import type { MetricsSnapshot, PromClient } from './prom-client.loader';

/**
 * What the pool's children counted, kept in the main process: the latest
 * (cumulative) snapshot of each live child, and the retired total of every
 * child that exited, into which a child's last snapshot is folded when it
 * exits, so the pool's counters never go backwards when a child is replaced.
 * What a child counted after its last report is lost with it when it dies
 * without a goodbye (a crash, a kill): it reports every few hundred ms and
 * once more before it exits by itself.
 *
 * @internal
 */
export class ChildrenMetrics {
  private readonly live = new Map<number, MetricsSnapshot>();
  /** The exited children's sum (null before the first exits). */
  private retired: MetricsSnapshot | null = null;
  /** Last snapshots of exited children, not yet folded into `retired`. */
  private readonly leaving: MetricsSnapshot[] = [];
  /** The read under way; reads run one at a time. */
  private folding: Promise<void> = Promise.resolve();

  constructor(private readonly prom: PromClient) {}

  /** Child `pid`'s cumulative snapshot replaces its previous one. */
  reported(pid: number, snapshot: MetricsSnapshot): void {
    this.live.set(pid, snapshot);
  }

  /** Child `pid` is gone: its last snapshot moves to the retired total. */
  exited(pid: number): void {
    const last = this.live.get(pid);
    if (last === undefined) return;
    this.live.delete(pid);
    this.leaving.push(last);
  }

  /** Every snapshot to sum now: the retired total and each live child's. */
  snapshots(): Promise<MetricsSnapshot[]> {
    const read = this.folding.then(async () => {
      await this.foldLeaving();
      // Read at once after the fold: a child that exits meanwhile is in `leaving` or `live`, never in neither.
      const all = [...this.leaving, ...this.live.values()];
      if (this.retired !== null) all.unshift(this.retired);
      return all;
    });
    // One read at a time: each may replace `retired`, and a failed one must not stop the next.
    this.folding = read.then(
      () => undefined,
      () => undefined,
    );
    return read;
  }

  /** Sums the exited children's last snapshots into the retired total, once each. */
  private async foldLeaving(): Promise<void> {
    if (this.leaving.length === 0) return;
    const parts = this.leaving.splice(0);
    if (this.retired !== null) parts.unshift(this.retired);
    const sum = this.prom.AggregatorRegistry.aggregate(parts);
    this.retired = await sum.getMetricsAsJSON();
  }
}
