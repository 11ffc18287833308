import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import type { QueueSegment } from '../core/queue-segment';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { FINISHED_STATUSES, type TaskResultStatus } from '../core/task-result-status.enum';

/** Tasks read per call when a filter of the dashboard walks a segment. */
export const WALK_PAGE = 500;

/**
 * Calls `visit` with every task of a segment of a queue, of one task name
 * or any, a page at a time (listTasks: a cursor, never an offset, so tasks
 * leaving the segment meanwhile neither hide others nor come twice).
 */
export async function walkSegment(
  backend: TaskBackend,
  where: { queue: string; segment: QueueSegment; taskName?: string },
  visit: (records: readonly TaskRecord[]) => Promise<void>,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await backend.reads.listTasks({
      queue: where.queue,
      segment: where.segment,
      limit: WALK_PAGE,
      ...(cursor !== undefined && { cursor }),
      ...(where.taskName !== undefined && { taskName: where.taskName }),
    });
    await visit(page.records);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
}

/**
 * How many tasks of a segment of a queue (of one task name, or any) there
 * are now: the telemetry's count, or a walk of the segment for a task name.
 */
export async function countInSegment(
  backend: TaskBackend,
  where: { queue: string; segment: QueueSegment; taskName?: string },
): Promise<number> {
  if (where.taskName === undefined) {
    return (await backend.reads.telemetry(60_000)).queues[where.queue].counts[where.segment];
  }
  let count = 0;
  await walkSegment(backend, where, async (records) => {
    count += records.length;
  });
  return count;
}

/** How many of the tasks of `ids` are stored with a status `wanted` accepts. */
export async function countByIds(
  backend: TaskBackend,
  ids: readonly string[],
  wanted: (status: TaskResultStatus) => boolean,
): Promise<number> {
  let count = 0;
  for (const id of ids) {
    try {
      if (wanted((await backend.tasks.getResult(id)).status)) count++;
    } catch (error) {
      if (!(error instanceof TaskResultDoesNotExist)) throw error;
    }
  }
  return count;
}

/** Whether a status is final (SUCCESSFUL, FAILED, CANCELLED). */
export const isFinal = (status: TaskResultStatus): boolean => FINISHED_STATUSES.has(status);
