import type {
  AcknowledgeAndAcquireResult,
  AcquireOptions,
  TaskBackend,
} from './task-backend.interface';

/**
 * `acknowledgeAndAcquire` for a store where the two steps cost nothing
 * extra apart (in memory): acknowledge, then acquire.
 */
export async function acknowledgeThenAcquire(
  backend: Pick<TaskBackend, 'acknowledge' | 'acquire'>,
  finished: Parameters<TaskBackend['acknowledge']>[0],
  queues: readonly string[],
  options: AcquireOptions,
): Promise<AcknowledgeAndAcquireResult> {
  const acknowledged = finished.length > 0 ? await backend.acknowledge(finished) : [];
  return { acknowledged, acquired: await backend.acquire(queues, options) };
}
