import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';

/** Most running tasks read per queue when looking for the leases of one process. */
const LEASE_SEARCH_LIMIT = 1000;

/**
 * The RUNNING tasks whose latest worker id starts with `prefix`
 * (`host:pid-`: the slots of one process), from each of `queues`: the leases
 * a process holds by the store's account, whatever it remembers itself.
 *
 * @internal
 */
export async function leasesUnder(
  backend: TaskBackend,
  queues: readonly string[],
  prefix: string,
): Promise<TaskRecord[]> {
  const segments = await Promise.all(
    queues.map((queue) => backend.reads.peek(queue, 'running', LEASE_SEARCH_LIMIT)),
  );
  return segments.flat().filter((r) => r.workerIds[r.workerIds.length - 1]?.startsWith(prefix));
}
