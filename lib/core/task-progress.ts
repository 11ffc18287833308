import { InvalidTaskProgressError } from './errors/invalid-task-progress.error';
import { InvalidTaskError } from './errors/invalid-task.error';
import { progressNotJson, progressTooLarge } from './progress.messages';
import type { TaskRecord } from './task-record.interface';
import { assertJsonSafe } from './task-serializer';

/**
 * Largest progress value `TaskContext.progress` accepts, in bytes of its
 * JSON: progress is rewritten while the task runs and read with every
 * result, so it stays a number or a few fields, never a payload.
 *
 * @publicApi
 */
export const MAX_PROGRESS_BYTES = 1024;

/**
 * Least time between two stores of one attempt's progress (ms). Reports in
 * between only replace the value waiting to be stored; every interval, a
 * process stores the values waiting for all its running tasks of one store
 * in one call, so a task that reports every millisecond costs at most one
 * write per interval, shared with every other task of that process. The
 * last value is stored with the attempt's outcome, in the same step.
 *
 * @publicApi
 */
export const PROGRESS_INTERVAL_MS = 500;

/**
 * A progress value as JSON text, or InvalidTaskProgressError when it is not
 * JSON or is over MAX_PROGRESS_BYTES. A finite number needs no check beyond
 * that (the common case, and TaskContext keeps it unconverted until it stores it).
 */
export function progressJson(value: unknown, taskName: string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InvalidTaskProgressError(progressNotJson(taskName, `is ${String(value)}`));
    }
    return String(value);
  }
  try {
    assertJsonSafe(value, taskName, 'progress');
  } catch (error) {
    if (!(error instanceof InvalidTaskError)) throw error;
    throw new InvalidTaskProgressError(error.message, { cause: error });
  }
  const text = JSON.stringify(value);
  // UTF-16 units bound the UTF-8 bytes from below: only a long text needs the exact count.
  const bytes = text.length * 3 <= MAX_PROGRESS_BYTES ? text.length : Buffer.byteLength(text);
  if (bytes > MAX_PROGRESS_BYTES) {
    throw new InvalidTaskProgressError(progressTooLarge(taskName, bytes, MAX_PROGRESS_BYTES));
  }
  return text;
}

/**
 * What a backend stores for a progress report: `[attempt, value]` as JSON,
 * so a read can tell the current attempt's progress from an earlier one's.
 */
export function storedProgress(attempt: number, valueJson: string): string {
  return `[${attempt},${valueJson}]`;
}

/**
 * What a backend stores, with a finished record's outcome and in the same
 * atomic step, as its progress: the last value its attempt reported, which
 * the record carries (see storedProgress). Null when it carries none (its
 * attempt reported nothing, or the record was not made by a runner), so
 * such a record costs a backend nothing more to store.
 */
export function finishedProgress(record: TaskRecord): string | null {
  if (record.progress === undefined) return null;
  return storedProgress(record.workerIds.length, JSON.stringify(record.progress));
}

/**
 * `record` with the progress a backend stored for it (see storedProgress),
 * when that belongs to the record's current attempt: a new attempt starts
 * without progress (an earlier attempt's is not shown), and a task waiting
 * for a retry still shows where its failed attempt got to. Unreadable
 * stored text is ignored: progress is advisory, never a reason to fail a read.
 */
export function recordWithProgress(
  record: TaskRecord,
  stored: string | null | undefined,
): TaskRecord {
  if (stored === null || stored === undefined) return record;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return record;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return record;
  if (parsed[0] !== record.workerIds.length) return record;
  return { ...record, progress: parsed[1] as unknown };
}
