import { UnknownQueueError } from './errors/unknown-queue.error';
import { unknownQueue } from './control.messages';

/**
 * Throws UnknownQueueError unless `queue` is one of the alias's `queues`: a
 * pause of a misspelt queue must fail loudly, not store a state no worker reads.
 */
export function assertKnownQueue(alias: string, queues: readonly string[], queue: string): void {
  if (!queues.includes(queue)) throw new UnknownQueueError(unknownQueue(queue, alias, queues));
}
