import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { shown } from '../../core/shown';
import { invalidBackendOption } from '../../core/threadmill.messages';
import { StoreGuard } from '../store-guard';

/**
 * The guard of one RedisBackend alias, shared with the backend's
 * collaborators, so a call made from within another (failing unreadable
 * tasks, giving back leases) is checked the same way; a queue named on its
 * own (paused, limited) must be configured too.
 */
export class RedisCallGuard extends StoreGuard {
  assertQueue(queue: string): void {
    if (!this.queueSet.has(queue)) {
      throw new InvalidBackendConfigError(
        invalidBackendOption(this.alias, 'queues', `does not include the queue ${shown(queue)}`),
      );
    }
  }
}
