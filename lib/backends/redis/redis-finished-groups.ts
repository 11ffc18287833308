import { finishedSegment } from '../../core/queue-segment';
import type { TaskRecord } from '../../core/task-record.interface';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import { finishedLabel } from './redis-finished-payload';
import type { RedisKeys } from './redis-keys';
import type { RedisRecordCodec } from './redis-record.codec';
import type { AcknowledgeGroup } from './redis-script-types';

/**
 * Finished records grouped by queue, final status and task name, as the
 * scripts that store them take them: two arguments per record, and one
 * label per group that its stored ids are announced with. `order[k]` is the
 * index in `records` of the k-th record across the groups.
 *
 * Every record has finished: the guard refuses any other before a call gets here.
 * @internal
 */
export function groupFinished(
  records: readonly TaskRecord[],
  keys: RedisKeys,
  codec: RedisRecordCodec,
  queueOf: (record: TaskRecord) => string,
): { groups: AcknowledgeGroup[]; order: number[] } {
  const groups: AcknowledgeGroup[] = [];
  const indexes: number[][] = [];
  // Queues, statuses and names hold no space, so the triple is one unambiguous key.
  const byKey = new Map<string, number>();
  // A batch is mostly one group: a record like the one before it joins its group unlooked-up.
  let last: { queue: string; status: TaskResultStatus; name: string; at: number } | null = null;
  records.forEach((record, index) => {
    const queue = queueOf(record);
    const { status } = record;
    const { name } = record.task;
    let at =
      last !== null && last.queue === queue && last.status === status && last.name === name
        ? last.at
        : byKey.get(`${queue} ${status} ${name}`);
    if (at === undefined) {
      at = groups.length;
      byKey.set(`${queue} ${status} ${name}`, at);
      groups.push({
        label: finishedLabel(queue, record.status, record.task.name),
        runningKey: keys.running(queue),
        historyKey: keys.history(queue, finishedSegment(record.status)),
        ids: [],
        json: [],
      });
      indexes.push([]);
    }
    if (last === null || last.at !== at) last = { queue, status, name, at };
    groups[at].ids.push(record.id);
    groups[at].json.push(codec.encodeFinished(record));
    indexes[at].push(index);
  });
  return { groups, order: indexes.flat() };
}
