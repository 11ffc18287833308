import {
  BackendUnavailableError,
  EnqueueOutcomeUnknownError,
  InvalidTaskError,
  PoolHeartbeatLapsedError,
  ReplicasBehindError,
  StoreCorruptError,
  StoreFullError,
  TaskAlreadyExistsError,
  TaskResult,
  type ThreadmillError,
} from '../../../lib/core';
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
