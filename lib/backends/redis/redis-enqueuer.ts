import { assertDistinctIds } from '../distinct-ids';
import { EnqueueOutcomeUnknownError } from '../../core/errors/enqueue-outcome-unknown.error';
import { ReplicasBehindError } from '../../core/errors/replicas-behind.error';
import { EnqueueCoalescer, type EnqueueOutcome } from '../enqueue-coalescer';
import { delayUntil } from '../run-after';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisEnqueueErrors } from './redis-enqueue-errors';
import { PRIORITY_WEIGHT } from './redis-task-hash';
import type { EnqueueGroup, EnqueueQueueKeys, UniqueEnqueueItem } from './redis-script-types';
import { WAKE_BOUND } from './redis-scripts';

/**
 * Most single enqueues in one script call. Callers woken by one reply all
 * enqueue again in the same tick; sent as one call, Redis would wait while
 * this process builds every record, and this process would wait while Redis
 * stores them. Calls of 32 let the two overlap: with 100 enqueues in flight
 * that took the rate from about 58k to 109k tasks a second on a 2-core
 * machine, while the fixed cost of a script call stays small per task.
 */
export const GATHERED_BATCH = 32;

/** What a lost reply said, once it happened: each caller is then told of its own task. */
interface LostReplySeen {
  reason?: string;
  cause?: unknown;
}

/**
 * Stores new tasks of one RedisBackend alias, a batch in one script call:
 * all or none (enqueueMany), refused whole when one of its ids is stored
 * already, or each (single enqueues gathered by EnqueueCoalescer), where a
 * refusal refuses only its own record.
 *
 * @internal
 */
export class RedisEnqueuer {
  private readonly coalescer = new EnqueueCoalescer(
    (records) => this.enqueueEach(records),
    GATHERED_BATCH,
  );
  /** Each queue's keys, built once: a single enqueue would otherwise build four names per call. */
  private readonly queueKeysByName = new Map<string, EnqueueQueueKeys>();

  private readonly errors: RedisEnqueueErrors;

  constructor(
    private readonly context: RedisAliasContext,
    /** The backend the TaskResult of a clashing task reads through. */
    backend: TaskBackend,
  ) {
    this.errors = new RedisEnqueueErrors(context, backend);
  }

  /**
   * One task, in one script call with the other enqueues of this tick (the
   * guard has checked it on its own, so a task the alias cannot take fails alone).
   */
  enqueue(record: TaskRecord): Promise<TaskRecord> {
    return this.coalescer.enqueue(record);
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    assertDistinctIds(records);
    this.coalescer.flush();
    // All or none: the script refused the call at its first refusal, which is every outcome's error.
    return (await this.store(records, false)) as TaskRecord[];
  }

  /**
   * Per record, in order, what a lone enqueue of it would return or throw;
   * the records' ids are distinct (the coalescer sees to it). A lost reply
   * fails each with an EnqueueOutcomeUnknownError naming its own id only.
   */
  private enqueueEach(records: readonly TaskRecord[]): Promise<EnqueueOutcome[]> {
    return this.store(records, true);
  }

  private async store(records: readonly TaskRecord[], each: boolean): Promise<EnqueueOutcome[]> {
    if (records.length === 0) return [];
    const queueIndexes = new Map<string, number>();
    const queueKeys: EnqueueQueueKeys[] = [];
    const ids = records.map((record) => record.id);
    const queueOf = new Array<number>(records.length);
    const data = new Array<string>(records.length);
    records.forEach((record, i) => {
      const queue = this.context.guard.queueOf(record);
      let queueIndex = queueIndexes.get(queue);
      if (queueIndex === undefined) {
        queueIndex = queueKeys.length;
        queueIndexes.set(queue, queueIndex);
        queueKeys.push(this.queueKeys(queue));
      }
      queueOf[i] = queueIndex;
      data[i] = this.context.codec.encodeLive(record);
    });
    const queueNames = [...queueIndexes.keys()].join(' ');
    const lost: LostReplySeen = {};
    const what = (): string => `an enqueue of ${records.length} task(s)`;
    const lostReply = (reason: string, cause: unknown): EnqueueOutcomeUnknownError => {
      Object.assign(lost, { reason, cause });
      return this.errors.outcomeUnknown(ids, reason, cause);
    };
    try {
      if (records.some((record) => record.task.unique !== undefined)) {
        return await this.storeKeyed(records, {
          queueKeys,
          queueNames,
          queueOf,
          data,
          each,
          lostReply,
          what,
        });
      }
      const { connection, replicas } = this.context;
      const clashes = await connection.run(
        () =>
          replicas.confirmed(connection.client, what, () =>
            this.context.scripts.enqueue.store(
              this.context.keys.sequence,
              queueKeys,
              // Delays are read now, as the call goes: the script adds them to Redis's clock.
              enqueueGroups(records, queueOf, data, Date.now()),
              {
                taskPrefix: this.context.keys.taskPrefix,
                resultTtlMs: this.context.settings.retention.longestMaxAgeMs,
                priorityWeight: PRIORITY_WEIGHT,
                wakeBound: WAKE_BOUND,
                each,
                liveChannel: this.context.keys.liveChannel,
                queueNames,
              },
            ),
          ),
        lostReply,
      );
      if (!each && clashes.length > 0) throw this.errors.alreadyExists(clashes[0]);
      const outcomes: EnqueueOutcome[] = [...records];
      for (const clash of clashes) outcomes[clash.index] = this.errors.alreadyExists(clash);
      return outcomes;
    } catch (error) {
      if (error instanceof ReplicasBehindError) {
        // Stored on the primary, perhaps not for good: each caller is told of its own task.
        if (!each || records.length === 1) throw this.errors.notReplicated(ids, error);
        return ids.map((id) => this.errors.notReplicated([id], error));
      }
      const { reason } = lost;
      if (!each || reason === undefined || records.length === 1) throw error;
      // Each caller is told of its own task, as its lone enqueue would have been.
      return ids.map((id) => this.errors.outcomeUnknown([id], reason, lost.cause));
    }
  }

  private queueKeys(queue: string): EnqueueQueueKeys {
    let keys = this.queueKeysByName.get(queue);
    if (keys === undefined) {
      const { context } = this;
      keys = {
        queueKey: context.keys.queue(queue),
        deferredKey: context.keys.deferred(queue),
        ingressPrefix: context.keys.ingressPrefix(queue),
        wakeKey: context.keys.wake(queue),
      };
      this.queueKeysByName.set(queue, keys);
    }
    return keys;
  }

  /**
   * A batch with unique keys, whole through enqueueUnique.lua (so it stays
   * one atomic step); per record what was stored, the holder of its key,
   * or (each) the refusal of that record alone.
   */
  private async storeKeyed(
    records: readonly TaskRecord[],
    call: {
      queueKeys: readonly EnqueueQueueKeys[];
      /** The queues' names in the order of `queueKeys`, separated by spaces. */
      queueNames: string;
      queueOf: readonly number[];
      data: readonly string[];
      each: boolean;
      lostReply: (reason: string, cause: unknown) => EnqueueOutcomeUnknownError;
      /** Names the write for ReplicasBehindError. */
      what: () => string;
    },
  ): Promise<EnqueueOutcome[]> {
    const { keys, settings } = this.context;
    // Delays are read now, as the call goes: the script adds them to Redis's clock.
    const now = Date.now();
    const items = uniqueItems(records, call.queueOf, call.data, now);
    const { connection, replicas } = this.context;
    const reply = await connection.run(
      () =>
        replicas.confirmed(connection.client, call.what, () =>
          this.context.scripts.unique.enqueue(
            { sequenceKey: keys.sequence, uniqueKeysKey: keys.uniqueKeys },
            call.queueKeys,
            items,
            {
              taskPrefix: keys.taskPrefix,
              windowPrefix: keys.uniqueWindowPrefix,
              resultTtlMs: settings.retention.longestMaxAgeMs,
              priorityWeight: PRIORITY_WEIGHT,
              wakeBound: WAKE_BOUND,
              runningStatus: TaskResultStatus.RUNNING,
              each: call.each,
              liveChannel: keys.liveChannel,
              queueNames: call.queueNames,
            },
          ),
        ),
      call.lostReply,
    );
    if (reply.kind === 'clash') throw this.errors.alreadyExists(reply.clash);
    if (reply.kind === 'windowGone') throw this.errors.windowGone(reply);
    const returned: EnqueueOutcome[] = [];
    reply.outcomes.forEach((outcome, i) => {
      if (outcome.kind === 'stored') returned.push(records[i]);
      else if (outcome.kind === 'replaced') returned.push({ ...records[i], id: outcome.id });
      else if (outcome.kind === 'returnedWritten') returned.push(returned[outcome.index]);
      else if (outcome.kind === 'clash') {
        returned.push(
          this.errors.alreadyExists({ index: i, id: records[i].id, fields: outcome.fields }),
        );
      } else if (outcome.kind === 'windowGone') returned.push(this.errors.windowGone(outcome));
      // Seen with its data present, so the record is there (or corrupt, which throws).
      else returned.push(this.context.codec.decodeStored(outcome.id, outcome.fields) as TaskRecord);
    });
    return returned;
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

/** The records as enqueueUnique.lua's items, their delays left at `now`. */
export function uniqueItems(
  records: readonly TaskRecord[],
  queueOf: readonly number[],
  data: readonly string[],
  now: number,
): UniqueEnqueueItem[] {
  return records.map((record, i) => {
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
}
