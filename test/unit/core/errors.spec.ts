import { BackendUnavailableError } from '../../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../../lib/core/errors/enqueue-outcome-unknown.error';
import { InvalidTaskError } from '../../../lib/core/errors/invalid-task.error';
import { PoolHeartbeatLapsedError } from '../../../lib/core/errors/pool-heartbeat-lapsed.error';
import { ReplicasBehindError } from '../../../lib/core/errors/replicas-behind.error';
import { StoreCorruptError } from '../../../lib/core/errors/store-corrupt.error';
import { StoreFullError } from '../../../lib/core/errors/store-full.error';
import { TaskAlreadyExistsError } from '../../../lib/core/errors/task-already-exists.error';
import type { ThreadmillError } from '../../../lib/core/errors/threadmill.error';
import { TaskResult } from '../../../lib/core/task-result';
import { readyRecord } from '../../helpers/ready-record';

describe('ThreadmillError.retryable', () => {
  const stored = readyRecord('default', { id: 'taken' });

  it.each<[string, ThreadmillError, boolean]>([
    ['an outage', new BackendUnavailableError('down'), true],
    ['a full store', new StoreFullError('OOM'), true],
    ['a lapsed pool heartbeat', new PoolHeartbeatLapsedError('lapsed'), true],
    ['an enqueue whose outcome is unknown', new EnqueueOutcomeUnknownError('lost', ['a']), true],
    ['a write the replicas did not confirm', new ReplicasBehindError('behind', 0, 1), true],
    ['an invalid task', new InvalidTaskError('bad'), false],
    ['a damaged store', new StoreCorruptError('malformed'), false],
    [
      'an id already stored',
      new TaskAlreadyExistsError(
        'taken',
        new TaskResult(stored, {
          alias: 'default',
          getResult: async () => stored,
          subscribeFinished: async () => async () => undefined,
        }),
      ),
      false,
    ],
  ])('says whether %s can succeed if sent again', (_what, error, retryable) => {
    expect(error.retryable).toBe(retryable);
    expect(error.code).toMatch(/^[A-Z_]+$/);
  });
});
