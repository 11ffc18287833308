import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import type { CancelRequest, CancelResult, CancelRule } from '../../core/ports/control-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { taskResultDoesNotExist } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { finishedLabel, finishedMessage } from './redis-finished-payload';
import { RedisControlScripts } from './redis-control-scripts';
import { TASK_HASH_FIELDS } from './redis-task-hash';
import { CancelReply } from './redis-script-types';

/** Most requests one poll reads: far more than a pool can hold cancelled at once. */
const REQUESTS_READ = 1000;

/**
 * Cancels tasks of one RedisBackend alias (cancel-5.lua) and serves the
 * pools' cancel requests. The rule passed in decides from the task as read;
 * the script stores the decision only while the task is as it was read (a
 * task leased in between is read again).
 *
 * @internal
 */
export class RedisCancels {
  private readonly scripts: RedisControlScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.scripts = new RedisControlScripts(context.connection.client);
  }

  async cancel(id: string, decide: CancelRule): Promise<CancelResult> {
    const { keys, connection, settings } = this.context;
    // Each turn loses only to a lease taken in between, so a few always suffice in practice.
    for (;;) {
      const { record, workersSeen } = await this.read(id);
      // The script learns whether a lease holds the task as it applies: both decisions go.
      const now = new Date();
      const waiting = decide(record, false, now);
      if (waiting.outcome === 'already-final') return { outcome: 'already-final', record };
      const leased = decide(record, true, now);
      const queue = this.context.guard.queueOf(record);
      const cancelled = waiting.record;
      const [reply, pool] = await connection.run(() =>
        this.scripts.cancel(
          {
            queueKey: keys.queue(queue),
            deferredKey: keys.deferred(queue),
            runningKey: keys.running(queue),
            historyKey: keys.history(queue, 'cancelled'),
            taskKey: keys.task(id),
          },
          {
            id,
            workersSeen,
            outcome: this.context.codec.encodeFinished(cancelled),
            resultTtlMs: settings.retention.longestMaxAgeMs,
            cancelsPrefix: keys.cancelsPrefix,
            channel: keys.finishedChannel,
            message: finishedMessage(finishedLabel(queue, cancelled.status, record.task.name), id),
            lease: record.workerIds.at(-1) ?? '',
          },
        ),
      );
      switch (reply) {
        case CancelReply.Cancelled:
          return { outcome: 'cancelled', record: cancelled };
        case CancelReply.Requested:
          return { outcome: 'requested', record: leased.record, holder: pool === '' ? null : pool };
        case CancelReply.AlreadyFinal:
          return { outcome: 'already-final', record: (await this.read(id)).record };
        case CancelReply.Missing:
          throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.context.alias));
        case CancelReply.Changed:
          continue;
      }
    }
  }

  async requests(poolId: string): Promise<CancelRequest[]> {
    const flat = await this.context.connection.run(() =>
      this.context.connection.client.zrange(
        this.context.keys.cancels(poolId),
        0,
        REQUESTS_READ - 1,
        'WITHSCORES',
      ),
    );
    const requests: CancelRequest[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      // `<id> <lease>`: a task id has no space (isValidTaskId).
      const [id, lease = ''] = flat[i].split(' ', 2);
      requests.push({ id, requestedAt: new Date(Number(flat[i + 1])), lease });
    }
    return requests;
  }

  async drop(poolId: string, requests: readonly CancelRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const members = requests.map(({ id, lease }) => (lease === '' ? id : `${id} ${lease}`));
    await this.context.connection.run(() =>
      this.context.connection.client.zrem(this.context.keys.cancels(poolId), ...members),
    );
  }

  /** The task and its raw `workers` field (the script's guard); TaskResultDoesNotExist when none. */
  private async read(id: string): Promise<{ record: TaskRecord; workersSeen: string }> {
    const values = await this.context.connection.run(() =>
      this.context.connection.client.hmget(this.context.keys.task(id), ...TASK_HASH_FIELDS),
    );
    const record = this.context.codec.decodeStored(id, values);
    if (!record) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.context.alias));
    return { record, workersSeen: values[4] ?? '' };
  }
}
