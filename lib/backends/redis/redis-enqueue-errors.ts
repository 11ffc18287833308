import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import type { ReplicasBehindError } from '../../core/errors/replicas-behind.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import { enqueueNotReplicated } from './replication.messages';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult } from '../../core/task-result';
import { enqueueOutcomeUnknown, taskAlreadyExists } from '../../core/threadmill.messages';
import { uniqueKeyHeld } from '../../core/unique-key.messages';
import type { RedisAliasContext } from './redis-alias-context';
import type { EnqueueClash } from './redis-script-types';
import { finishedRecordSource } from '../../core/wait-for-finished';

/**
 * The errors an enqueue of one RedisBackend alias answers with when it did
 * not simply store: an id already stored, a unique key's window holding a
 * task that is gone, a reply lost, or replicas that did not confirm it.
 *
 * @internal
 */
export class RedisEnqueueErrors {
  constructor(
    private readonly context: RedisAliasContext,
    /** The backend the TaskResult of a clashing task reads through. */
    private readonly backend: TaskBackend,
  ) {}

  windowGone(refusal: { key: string; holderId: string; windowEndMs: number }): UniqueKeyHeldError {
    const endsAt = new Date(refusal.windowEndMs);
    return new UniqueKeyHeldError(
      uniqueKeyHeld(refusal.key, this.context.settings.alias, refusal.holderId, endsAt),
      refusal.key,
      refusal.holderId,
      endsAt,
    );
  }

  outcomeUnknown(
    ids: readonly string[],
    reason: string,
    cause: unknown,
  ): EnqueueOutcomeUnknownError {
    return new EnqueueOutcomeUnknownError(
      enqueueOutcomeUnknown(this.context.settings.alias, ids, reason),
      ids,
      { cause },
    );
  }

  /**
   * An enqueue the primary stored but too few replicas confirmed: a failover
   * could still lose it, so its outcome is unknown, as for a lost reply (the
   * same id sent again is safe). The replicas' figures are in its `cause`.
   */
  notReplicated(ids: readonly string[], cause: ReplicasBehindError): EnqueueOutcomeUnknownError {
    const timeoutMs = this.context.settings.waitForReplicas?.timeoutMs ?? 0;
    return new EnqueueOutcomeUnknownError(
      enqueueNotReplicated(
        this.context.settings.alias,
        ids,
        cause.confirmed,
        cause.required,
        timeoutMs,
      ),
      ids,
      { cause },
    );
  }

  /** The error of an enqueue refused because a task with one of its ids is stored; it carries that task. */
  alreadyExists({ id, fields }: EnqueueClash): TaskAlreadyExistsError {
    // The clash was seen with the hash's data present, so the record is there (or corrupt, which throws).
    const record = this.context.codec.decodeStored(id, fields) as TaskRecord;
    return new TaskAlreadyExistsError(
      taskAlreadyExists(id, this.context.settings.alias, record.status),
      new TaskResult(record, finishedRecordSource(this.backend)),
    );
  }
}
