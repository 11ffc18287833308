import type { MetricsSnapshot } from '../../metrics/prom-client.loader';
import { asChildMessage } from '../worker-ipc';
import type { ForkedChild } from './worker-pool.deps';

/** What keeps the children's metrics in the main process (PoolMetrics). */
export interface ChildMetricsSink {
  reported(pid: number, snapshot: MetricsSnapshot): void;
  exited(pid: number): void;
}

/**
 * Hands a forked child's metrics reports to `sink`, and its exit once it is
 * closed ('close' comes after the IPC channel drained, so its last report is
 * in). Beside the WorkerPool's own listeners, which the metrics do not concern.
 *
 * @internal
 */
export function feedChildMetrics(child: ForkedChild, sink: ChildMetricsSink): void {
  const pid = child.pid;
  if (pid === undefined) return;
  child.on('message', (raw: unknown) => {
    const message = asChildMessage(raw);
    if (message?.kind === 'metrics') sink.reported(pid, message.snapshot);
  });
  child.once('close', () => sink.exited(pid));
}
