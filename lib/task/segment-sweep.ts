import type { QueueSegment } from '../core/queue-segment';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';

/**
 * Acts on every task of one segment of a queue (of one task name, or any
 * when null), reading `batch` tasks per call, never the whole segment at
 * once. What `act` handles (returns true for) leaves the segment, so each
 * read asks for one batch more than the tasks it already passed over
 * (another name's, or one `act` declined): each is looked at once.
 *
 * @returns how many tasks `act` handled.
 * @internal
 */
export async function sweepSegment(
  backend: TaskBackend,
  where: { queue: string; segment: QueueSegment; taskName: string | null; batch: number },
  act: (record: TaskRecord) => Promise<boolean>,
): Promise<number> {
  let count = 0;
  const skipped = new Set<string>();
  for (;;) {
    const limit = skipped.size + where.batch;
    const records = await backend.reads.peek(where.queue, where.segment, limit);
    const fresh = records.filter((r) => !skipped.has(r.id));
    for (const record of fresh) {
      if ((where.taskName === null || record.task.name === where.taskName) && (await act(record))) {
        count++;
        continue;
      }
      skipped.add(record.id);
    }
    if (records.length < limit || fresh.length === 0) return count;
  }
}
