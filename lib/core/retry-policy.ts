import type { TaskBackoff } from './task-options.interface';
import type { TaskDescriptor, TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';

/** Most retries one task may ask for: enough for any real backoff schedule, small enough to stay finite. */
export const MAX_RETRIES = 100;

/** Longest single wait between attempts (7 days): beyond it a scheduler, not a retry, is the tool. */
export const MAX_BACKOFF_MS = 7 * 24 * 3600 * 1000;

/** The backoff of a task that sets `retries` and no `backoff`. */
export const DEFAULT_BACKOFF: Readonly<Required<TaskBackoff>> = {
  type: 'exponential',
  delayMs: 1000,
  maxDelayMs: 3600 * 1000,
  jitter: true,
};

/** A value as a message shows it: JSON where it has a shape, so an object never reads "[object Object]". */
const show = (value: unknown): string => {
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
};

const isWholeMs = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_BACKOFF_MS;

/**
 * What is wrong with a retry policy, as the end of a sentence, or null when it
 * is valid. The task layer turns a problem into an InvalidTaskError naming the task.
 */
export function retryPolicyProblem(retries: unknown, backoff: unknown): string | null {
  if (retries !== undefined) {
    if (
      typeof retries !== 'number' ||
      !Number.isInteger(retries) ||
      retries < 0 ||
      retries > MAX_RETRIES
    ) {
      return `retries ${show(retries)} is invalid; use a whole number from 0 to ${MAX_RETRIES}`;
    }
  }
  if (backoff === undefined) return null;
  if (typeof backoff !== 'object' || backoff === null || Array.isArray(backoff)) {
    return `backoff ${show(backoff)} is invalid; use { type: 'fixed' | 'exponential', delayMs, maxDelayMs?, jitter? }`;
  }
  const { type, delayMs, maxDelayMs, jitter, ...unknown } = backoff as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length > 0) return `backoff has unknown option(s) ${extra.join(', ')}`;
  if (type !== 'fixed' && type !== 'exponential') {
    return `backoff type ${show(type)} is invalid; use 'fixed' or 'exponential'`;
  }
  if (!isWholeMs(delayMs)) {
    return `backoff delayMs ${show(delayMs)} is invalid; use whole milliseconds from 0 to ${MAX_BACKOFF_MS}`;
  }
  if (maxDelayMs !== undefined && (!isWholeMs(maxDelayMs) || maxDelayMs < delayMs)) {
    return `backoff maxDelayMs ${show(maxDelayMs)} is invalid; use whole milliseconds from delayMs (${delayMs}) to ${MAX_BACKOFF_MS}`;
  }
  if (jitter !== undefined && typeof jitter !== 'boolean') {
    return `backoff jitter ${show(jitter)} is invalid; use true or false`;
  }
  return null;
}

/**
 * The wait before retry number `retry` (1 = the first retry), in ms.
 * `random` draws from [0, 1); it is used only with jitter.
 */
export function backoffDelay(
  backoff: TaskBackoff | undefined,
  retry: number,
  random: () => number = Math.random,
): number {
  const policy = { ...DEFAULT_BACKOFF, ...backoff };
  const ceiling = Math.max(backoff?.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs, policy.delayMs);
  const base =
    policy.type === 'fixed'
      ? policy.delayMs
      : policy.delayMs * 2 ** Math.min(Math.max(retry - 1, 0), 60);
  const wait = Math.min(base, ceiling);
  return policy.jitter ? Math.round(wait / 2 + random() * (wait / 2)) : wait;
}

/** Attempts a task may make in all: the first one plus its retries. */
export function allowedAttempts(task: Pick<TaskDescriptor, 'retries'>): number {
  const retries = task.retries;
  // A hand-edited or foreign record with a nonsense value fails once, as before retries existed.
  return typeof retries === 'number' && Number.isInteger(retries) && retries > 0
    ? 1 + Math.min(retries, MAX_RETRIES)
    : 1;
}

/**
 * Whether a task that failed its attempt number `attempts` (its worker ids
 * count them) runs again: the rule nextAttempt applies, for whoever must
 * know before it is applied (the metrics tell a retry from a failure).
 */
export function hasAttemptsLeft(task: Pick<TaskDescriptor, 'retries'>, attempts: number): boolean {
  // The attempt that just ended counts even if no worker id was recorded for it.
  return Math.max(attempts, 1) < allowedAttempts(task);
}

/** Whether `nextAttempt` sent the record back for another attempt (rather than failing it). */
export function isRetry(record: TaskRecord): boolean {
  return record.status === TaskResultStatus.READY;
}

/** Records as decided, parted into the final ones (acknowledge) and the retries (retry). */
export function partOutcomes(records: readonly TaskRecord[]): {
  final: TaskRecord[];
  retries: TaskRecord[];
} {
  const final: TaskRecord[] = [];
  const retries: TaskRecord[] = [];
  for (const record of records) (isRetry(record) ? retries : final).push(record);
  return { final, retries };
}
