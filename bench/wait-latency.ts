import { performance } from 'node:perf_hooks';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { finishedRecordSource, waitForFinished } from '../lib/core/wait-for-finished';
import type { TaskRecord } from '../lib/core/task-record.interface';

/**
 * How soon `waitForResult` (what `enqueue --wait` calls) resolves after a
 * task finishes: `waiter`, another backend instance on the same store (its
 * own connections, as another process would have), waits for each task while
 * `worker` leases and acknowledges it, one at a time. Each latency runs from
 * just before the acknowledge is sent to the wait resolving: the
 * acknowledge's round trip, the announcement, its delivery to the waiter and
 * the read of the final result. Returns the latencies (ms).
 */
export async function measureWaits(
  worker: TaskBackend,
  waiter: TaskBackend,
  queue: string,
  newRecord: () => TaskRecord,
  waits: number,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < waits; i++) {
    const task = await worker.tasks.enqueue(newRecord());
    const [leased] = await worker.leases.acquire([queue], { workerId: 'bench:1-0', timeoutMs: 0 });
    let resolvedAt = 0;
    const waiting = waitForFinished(finishedRecordSource(waiter), task.id, {
      timeoutMs: 10_000,
    }).then((record) => {
      resolvedAt = performance.now();
      return record;
    });
    // Time for the wait to subscribe and read the task RUNNING before it finishes.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sentAt = performance.now();
    await worker.leases.acknowledge([
      { ...leased, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue: i },
    ]);
    const record = await waiting;
    if (record.status !== TaskResultStatus.SUCCESSFUL) throw new Error(`task ${i} not final`);
    latencies.push(resolvedAt - sentAt);
  }
  return latencies;
}
