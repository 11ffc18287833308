import { ThreadmillError } from './threadmill.error';

/**
 * A write reached the Redis primary, but fewer of its replicas than
 * `waitForReplicas.count` confirmed it within `waitForReplicas.timeoutMs`
 * (WAIT): it is applied, and a failover now (a replica promoted in its
 * place) could still lose it. `confirmed` is how many did, `required` how
 * many were asked for. Sent again once the replicas catch up, the same call
 * finds what it stored, so it is retryable. An enqueue says so with an
 * EnqueueOutcomeUnknownError whose `cause` is this error.
 *
 * @publicApi
 */
export class ReplicasBehindError extends ThreadmillError {
  readonly code = 'REPLICAS_BEHIND';
  override readonly retryable = true;

  constructor(
    message: string,
    readonly confirmed: number,
    readonly required: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
