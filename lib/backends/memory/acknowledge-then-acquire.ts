import type {
  AcknowledgeAndAcquireResult,
  AcquireOptions,
  LeaseStore,
} from '../../core/ports/lease-store.port';
import type { TaskRecord } from '../../core/task-record.interface';

/**
 * `acknowledgeAndAcquire` for a store where the two steps cost nothing
 * extra apart (in memory): acknowledge, then acquire.
 */
export async function acknowledgeThenAcquire(
  leases: Pick<LeaseStore, 'acknowledge' | 'acquire'>,
  finished: readonly TaskRecord[],
  queues: readonly string[],
  options: AcquireOptions,
): Promise<AcknowledgeAndAcquireResult> {
  if (finished.length === 0)
    return { acknowledged: [], acquired: await leases.acquire(queues, options) };
  const acknowledged = await leases.acknowledge(finished);
  // Outcomes are not held back by an idle queue: look once, without waiting.
  return { acknowledged, acquired: await leases.acquire(queues, { ...options, timeoutMs: 0 }) };
}
