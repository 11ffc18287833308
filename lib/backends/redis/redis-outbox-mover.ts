import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { OutboxMover } from '../outbox/outbox-relay';
import { OutboxRelayFencedError } from '../outbox/outbox-relay-fenced.error';
import { outboxRelayFenced } from '../outbox/outbox.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { enqueueGroups, uniqueItems } from './redis-enqueuer';
import type { EnqueueQueueKeys } from './redis-script-types';
import { PRIORITY_WEIGHT } from './redis-task-hash';
import { WAKE_BOUND } from './redis-scripts';

/** The reply of a move script that a newer relay's generation refused: `FENCED <carried> <newer>`. */
const FENCED = /^FENCED (\d+) (\d+)/;

/**
 * Moves tasks from the outbox of a RedisBackend alias into Redis, in one
 * call of moveOutboxed.lua: each id once within the mark window, stored
 * as its enqueue would have stored it (queue, priority, deferral, and the
 * record's own data: name, args, trace context), under the id the app got.
 * Each call carries its relay's generation (the fencing token, an INCR of
 * RedisKeys.outboxGeneration as the relay takes the lock), which the
 * script checks in the same call: no round trip is added to a move.
 *
 * @internal
 */
export class RedisOutboxMover implements OutboxMover {
  constructor(
    private readonly context: RedisAliasContext,
    private readonly markWindowMs: number,
  ) {}

  unmovable(record: TaskRecord): string | null {
    try {
      this.context.guard.queueOf(record);
      return null;
    } catch (error) {
      if (error instanceof InvalidTaskError) return error.message;
      throw error;
    }
  }

  /**
   * A generation above every one issued before: issued and checked in the
   * same store, so the two can never disagree (as they could with a counter
   * in a Postgres restored from a backup). Confirmed by the replicas as a
   * move is, so a failover cannot issue one twice.
   */
  async takeGeneration(): Promise<number> {
    const { keys, connection, replicas } = this.context;
    return connection.run(() =>
      replicas.confirmed(
        connection.client,
        () => `the outbox relay's generation`,
        () => connection.client.incr(keys.outboxGeneration),
      ),
    );
  }

  /**
   * Consecutive records alike in having a unique key go in one call, in
   * their order: keyless ones through moveOutboxed.lua, keyed ones through
   * moveOutboxedUnique.lua, whose marks record what each key decided.
   *
   * @throws OutboxRelayFencedError when a newer relay took the lock since `generation`.
   */
  async move(records: readonly TaskRecord[], generation: number): Promise<void> {
    let start = 0;
    while (start < records.length) {
      const keyed = records[start].task.unique !== undefined;
      let end = start + 1;
      while (end < records.length && (records[end].task.unique !== undefined) === keyed) end++;
      await this.moveRun(records.slice(start, end), keyed, generation);
      start = end;
    }
  }

  /**
   * The id holding the task moved under `id`, once its move decided it: its
   * own, or the holder of its unique key. Null while not moved (or not yet
   * decided), and once its mark expired.
   */
  async movedHolder(id: string): Promise<string | null> {
    const { keys, connection } = this.context;
    const holder = await connection.run(() => connection.client.get(keys.moved(id)));
    return holder === null || holder === '' ? null : holder;
  }

  private async moveRun(
    records: readonly TaskRecord[],
    keyed: boolean,
    generation: number,
  ): Promise<void> {
    const { keys, codec, guard, connection, replicas, settings } = this.context;
    const queueIndexes = new Map<string, number>();
    const queueKeys: EnqueueQueueKeys[] = [];
    const queueOf = records.map((record) => {
      const queue = guard.queueOf(record);
      let index = queueIndexes.get(queue);
      if (index === undefined) {
        index = queueKeys.length;
        queueIndexes.set(queue, index);
        queueKeys.push({
          queueKey: keys.queue(queue),
          deferredKey: keys.deferred(queue),
          ingressPrefix: keys.ingressPrefix(queue),
          wakeKey: keys.wake(queue),
        });
      }
      return index;
    });
    const data = records.map((record) => codec.encodeLive(record));
    const fence = { generationKey: keys.outboxGeneration, generation };
    const marks = { movedPrefix: keys.movedPrefix, windowMs: this.markWindowMs };
    const common = {
      taskPrefix: keys.taskPrefix,
      resultTtlMs: settings.retention.longestMaxAgeMs,
      priorityWeight: PRIORITY_WEIGHT,
      wakeBound: WAKE_BOUND,
      liveChannel: keys.liveChannel,
      queueNames: [...queueIndexes.keys()].join(' '),
    };
    const what = (): string => `a move of ${records.length} task(s) from the outbox`;
    // Delays are read now, as the call goes: the script adds them to Redis's clock.
    const call = (now: number): Promise<void> =>
      keyed
        ? this.context.scripts.unique.move(
            fence,
            marks,
            { sequenceKey: keys.sequence, uniqueKeysKey: keys.uniqueKeys },
            queueKeys,
            uniqueItems(records, queueOf, data, now),
            {
              ...common,
              windowPrefix: keys.uniqueWindowPrefix,
              runningStatus: TaskResultStatus.RUNNING,
            },
          )
        : this.context.scripts.enqueue.move(
            fence,
            marks,
            keys.sequence,
            queueKeys,
            enqueueGroups(records, queueOf, data, now),
            common,
          );
    await connection.run(() =>
      replicas.confirmed(connection.client, what, async () => {
        try {
          await call(Date.now());
        } catch (error) {
          const fenced = this.fenced(error);
          if (fenced) throw fenced;
          await this.unmarkAfterRefusal(records, error);
          throw error;
        }
      }),
    );
  }

  /**
   * The typed error of a move the fence refused; null for any other failure.
   * Its tasks' marks are left alone: they are the newer relay's.
   */
  private fenced(error: unknown): OutboxRelayFencedError | null {
    if (!(error instanceof Error) || error.name !== 'ReplyError') return null;
    const reply = FENCED.exec(error.message);
    if (reply === null) return null;
    const [generation, newer] = [Number(reply[1]), Number(reply[2])];
    return new OutboxRelayFencedError(
      outboxRelayFenced(this.context.alias, generation, newer),
      generation,
      newer,
      { cause: error },
    );
  }

  /**
   * A script that answered with an error (other than a full Redis, which
   * refuses it before it runs) undid its stores but not its marks: they go,
   * so the next move stores those tasks. A lost reply keeps them, as the
   * call may have stored its tasks.
   */
  private async unmarkAfterRefusal(records: readonly TaskRecord[], error: unknown): Promise<void> {
    const refused = error instanceof Error && error.name === 'ReplyError';
    if (!refused || error.message.startsWith('OOM')) return;
    const { keys, connection } = this.context;
    await connection.client.del(...records.map((record) => keys.moved(record.id)));
  }
}
