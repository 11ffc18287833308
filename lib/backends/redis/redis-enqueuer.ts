import { assertDistinctIds } from '../../core/distinct-ids';
import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import { UniqueKeyHeldError } from '../../core/errors/unique-key-held.error';
import { delayUntil } from '../../core/run-after';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResult } from '../../core/task-result';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { uniqueKeyHeld } from '../../core/unique-key.messages';
import { enqueueOutcomeUnknown, taskAlreadyExists } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { PRIORITY_WEIGHT } from './redis-record.codec';
import type {
  EnqueueClash,
  EnqueueGroup,
  EnqueueQueueKeys,
  UniqueEnqueueItem,
} from './redis-script-types';
import { WAKE_BOUND } from './redis-scripts';

/**
 * Stores new tasks of one RedisBackend alias: a batch in one script call,
 * all or none, refused whole when one of its ids is stored already.
 *
 * @internal
 */
export class RedisEnqueuer {
  constructor(
    private readonly context: RedisAliasContext,
    /** The backend the TaskResult of a clashing task reads through. */
    private readonly backend: TaskBackend,
  ) {}

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    this.context.guard.assertOpen();
    if (records.length === 0) return [];
    const queueIndexes = new Map<string, number>();
    const queueKeys: EnqueueQueueKeys[] = [];
    assertDistinctIds(records);
    const ids = records.map((record) => record.id);
    const queueOf = new Array<number>(records.length);
    const data = new Array<string>(records.length);
    records.forEach((record, i) => {
      const queue = this.context.guard.queueOf(record);
      let queueIndex = queueIndexes.get(queue);
      if (queueIndex === undefined) {
        queueIndex = queueKeys.length;
        queueIndexes.set(queue, queueIndex);
        queueKeys.push({
          queueKey: this.context.keys.queue(queue),
          deferredKey: this.context.keys.deferred(queue),
          ingressPrefix: this.context.keys.ingressPrefix(queue),
          wakeKey: this.context.keys.wake(queue),
        });
      }
      queueOf[i] = queueIndex;
      data[i] = this.context.codec.encodeLive(record);
    });
    const queueNames = [...queueIndexes.keys()].join(' ');
    if (records.some((record) => record.task.unique !== undefined)) {
      return this.enqueueKeyed(records, queueKeys, queueNames, queueOf, data);
    }
    const clash = await this.context.connection.run(
      () =>
        this.context.scripts.enqueue(
          this.context.keys.sequence,
          queueKeys,
          // Delays are read now, as the call goes: the script adds them to Redis's clock.
          enqueueGroups(records, queueOf, data, Date.now()),
          {
            taskPrefix: this.context.keys.taskPrefix,
            resultTtlMs: this.context.settings.retention.longestMaxAgeMs,
            priorityWeight: PRIORITY_WEIGHT,
            wakeBound: WAKE_BOUND,
            liveChannel: this.context.keys.liveChannel,
            queueNames,
          },
        ),
      (reason, cause) => this.outcomeUnknown(ids, reason, cause),
    );
    if (clash) throw this.alreadyExists(clash);
    return [...records];
  }

  /**
   * A batch with unique keys, whole through enqueueUnique.lua (so it stays
   * one atomic step); per record what was stored, or the holder of its key.
   */
  private async enqueueKeyed(
    records: readonly TaskRecord[],
    queueKeys: readonly EnqueueQueueKeys[],
    queueNames: string,
    queueOf: readonly number[],
    data: readonly string[],
  ): Promise<TaskRecord[]> {
    const { keys, settings } = this.context;
    const ids = records.map((record) => record.id);
    // Delays are read now, as the call goes: the script adds them to Redis's clock.
    const now = Date.now();
    const items = records.map((record, i): UniqueEnqueueItem => {
      const { unique } = record.task;
      return {
        queueIndex: queueOf[i],
        priority: record.task.priority,
        delayMs: delayUntil(record.task.runAfter, now) || null,
        id: record.id,
        data: data[i],
        unique: unique
          ? {
              key: unique.key,
              mode: unique.mode,
              windowTtlMs: unique.mode === 'window' ? (unique.ttlMs ?? null) : null,
            }
          : null,
      };
    });
    const reply = await this.context.connection.run(
      () =>
        this.context.scripts.unique.enqueue(
          { sequenceKey: keys.sequence, uniqueKeysKey: keys.uniqueKeys },
          queueKeys,
          items,
          {
            taskPrefix: keys.taskPrefix,
            windowPrefix: keys.uniqueWindowPrefix,
            resultTtlMs: settings.retention.longestMaxAgeMs,
            priorityWeight: PRIORITY_WEIGHT,
            wakeBound: WAKE_BOUND,
            runningStatus: TaskResultStatus.RUNNING,
            liveChannel: keys.liveChannel,
            queueNames,
          },
        ),
      (reason, cause) => this.outcomeUnknown(ids, reason, cause),
    );
    if (reply.kind === 'clash') throw this.alreadyExists(reply.clash);
    if (reply.kind === 'windowGone') {
      const endsAt = new Date(reply.windowEndMs);
      throw new UniqueKeyHeldError(
        uniqueKeyHeld(reply.key, settings.alias, reply.holderId, endsAt),
        reply.key,
        reply.holderId,
        endsAt,
      );
    }
    const returned: TaskRecord[] = [];
    reply.outcomes.forEach((outcome, i) => {
      if (outcome.kind === 'stored') returned.push(records[i]);
      else if (outcome.kind === 'replaced') returned.push({ ...records[i], id: outcome.id });
      else if (outcome.kind === 'returnedWritten') returned.push(returned[outcome.index]);
      // Seen with its data present, so the record is there (or corrupt, which throws).
      else returned.push(this.context.codec.decodeStored(outcome.id, outcome.fields) as TaskRecord);
    });
    return returned;
  }

  private outcomeUnknown(
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

  /** The error of an enqueue refused because a task with one of its ids is stored; it carries that task. */
  private alreadyExists({ id, fields }: EnqueueClash): TaskAlreadyExistsError {
    // The clash was seen with the hash's data present, so the record is there (or corrupt, which throws).
    const record = this.context.codec.decodeStored(id, fields) as TaskRecord;
    return new TaskAlreadyExistsError(
      taskAlreadyExists(id, this.context.settings.alias, record.status),
      new TaskResult(record, this.backend),
    );
  }
}

/**
 * The enqueue groups of `records` (whose queue indexes and encoded data are
 * `queueOf` and `data`): consecutive tasks alike in queue, priority and delay
 * share one, so enqueue order (FIFO) is kept. Each delay is what is left of
 * its runAfter at `now`, read on the enqueuer's clock right before the call.
 */
export function enqueueGroups(
  records: readonly TaskRecord[],
  queueOf: readonly number[],
  data: readonly string[],
  now: number,
): EnqueueGroup[] {
  const groups: EnqueueGroup[] = [];
  let group: EnqueueGroup | undefined;
  records.forEach((record, i) => {
    const queueIndex = queueOf[i];
    const { priority } = record.task;
    const delayMs = delayUntil(record.task.runAfter, now) || null;
    if (
      group?.queueIndex !== queueIndex ||
      group.priority !== priority ||
      group.delayMs !== delayMs
    ) {
      group = { queueIndex, priority, delayMs, ids: [], data: [] };
      groups.push(group);
    }
    group.ids.push(record.id);
    group.data.push(data[i]);
  });
  return groups;
}
