import type { TaskRecord } from '../core/task-record.interface';
import { unleasedRecord } from './unleased';

/** Default of how long a task no worker registers may wait for one (`--unknown-task-grace`). */
export const DEFAULT_UNKNOWN_TASK_GRACE_MS = 10 * 60_000;

/** The shortest and longest wait before a task unleased for its name is leased again. */
const UNLEASE_WAIT_MIN_MS = 1000;
const UNLEASE_WAIT_MAX_MS = 30_000;

/**
 * What a leased task becomes when the worker that leased it registers no
 * task of its name, as in a rolling deploy whose producers run before their
 * workers: READY again with no attempt counted (as `unleasedRecord`), due a
 * little later so another worker can take it, and stamped with when a worker
 * first unleased it. Null once it has waited `graceMs` since that first
 * unlease, or when a cancel is pending: the worker then fails the attempt,
 * and the retry policy (or the cancel) decides what follows.
 *
 * The wait grows with the time it has gone unclaimed (a tenth of it, from 1 s
 * up to 30 s), so a worker deployed soon after finds it soon, and a task
 * nobody will register does not keep the store busy.
 */
export function unknownTaskUnleased(
  record: TaskRecord,
  now: Date,
  graceMs: number,
): TaskRecord | null {
  if (record.cancelRequestedAt) return null;
  const since = record.task.unknownSince ?? now;
  const unclaimedMs = now.getTime() - since.getTime();
  if (unclaimedMs >= graceMs) return null;
  const waitMs = Math.min(UNLEASE_WAIT_MAX_MS, Math.max(UNLEASE_WAIT_MIN_MS, unclaimedMs / 10));
  const unleased = unleasedRecord(record);
  return {
    ...unleased,
    task: {
      ...unleased.task,
      runAfter: new Date(now.getTime() + Math.round(waitMs)),
      unknownSince: since,
    },
  };
}
