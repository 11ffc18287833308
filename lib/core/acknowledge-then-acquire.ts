import type {
  AcknowledgeAndAcquireResult,
  AcquireOptions,
  TaskBackend,
} from './task-backend.interface';
import type { TaskRecord } from './task-record.interface';

/**
 * `acknowledgeAndAcquire` for a store where the two steps cost nothing
 * extra apart (in memory): acknowledge, then acquire.
 */
export async function acknowledgeThenAcquire(
  backend: Pick<TaskBackend, 'acknowledge' | 'acquire'>,
  finished: readonly TaskRecord[],
  queues: readonly string[],
  options: AcquireOptions,
): Promise<AcknowledgeAndAcquireResult> {
  if (finished.length === 0)
    return { acknowledged: [], acquired: await backend.acquire(queues, options) };
  const acknowledged = await backend.acknowledge(finished);
  // Outcomes are not held back by an idle queue: look once, without waiting.
  return { acknowledged, acquired: await backend.acquire(queues, { ...options, timeoutMs: 0 }) };
}
