import { isFinishedSegment } from '../../core/queue-segment';
import { listedPage, planListing, textTie, type ListPlan } from '../list-cursor';
import type { TaskListQuery, TaskPage } from '../../core/task-listing';
import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisListingScripts } from './redis-listing-scripts';
import { RedisRecordCodec } from './redis-record.codec';
import { TASK_HASH_FIELDS } from './redis-task-hash';

/**
 * Pages of one RedisBackend alias's segments (listTasks): one call of
 * listSegment-1.lua per page, which finds the cursor's rank in O(log n) and
 * examines a bounded range from there, so a page costs the same with a
 * million tasks waiting. Ordered as peek orders them.
 *
 * @internal
 */
export class RedisListing {
  private readonly script: RedisListingScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.script = new RedisListingScripts(context.connection.client);
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const { connection, keys, settings } = this.context;
    const plan = planListing(this.context.alias, settings.queues, query);
    const finished = isFinishedSegment(plan.segment);
    const reply = await connection.run(() =>
      this.script.listSegment(this.segmentKey(plan), {
        descending: finished,
        after: plan.after && { score: plan.after.score, member: textTie(plan.after) },
        examine: plan.scan,
        wanted: plan.limit,
        // Finished tasks within the longest retention (trimming may lag a maintenance interval).
        keptMs: finished ? settings.retention.longestMaxAgeMs : null,
        taskPrefix: keys.taskPrefix,
        dataPrefix:
          plan.taskName === undefined ? '' : RedisRecordCodec.dataPrefixOfName(plan.taskName),
        fields: TASK_HASH_FIELDS,
      }),
    );
    const entries = reply.entries.map(({ id, score, values }) => ({
      position: { score, tie: id },
      record: this.decode(id, values),
    }));
    const last = reply.last && { score: reply.last.score, tie: reply.last.member };
    return listedPage(plan, { entries, last, ended: reply.ended });
  }

  private segmentKey({ queue, segment }: ListPlan): string {
    const { keys } = this.context;
    switch (segment) {
      case 'ready':
        return keys.queue(queue);
      case 'running':
        return keys.running(queue);
      case 'deferred':
        return keys.deferred(queue);
      default:
        return keys.history(queue, segment);
    }
  }

  /** A returned entry's record; null when its hash expired or cannot be read (peek skips those too). */
  private decode(id: string, values: (string | null)[]): TaskRecord | null {
    try {
      return this.context.codec.decodeStored(id, values);
    } catch (readError) {
      this.context.logger.debug(`listTasks skipped task ${id}: ${String(readError)}`);
      return null;
    }
  }
}
