import type { TaskErrorRecord } from '../../core/task-record.interface';
import type { TaskResultStatus } from '../../core/task-result-status.enum';
import type { TaskRecordJson } from '../../core/task-serializer';

// What a task's hash holds in Redis, field by field; RedisRecordCodec reads and writes it.

/**
 * Weight of one priority step in a ready score (-priority * weight + enqueue
 * sequence): larger than any sequence number an alias will reach, and small
 * enough that every score stays an exact integer in a double.
 */
export const PRIORITY_WEIGHT = 1e13;

/** The fields acquire writes into a task hash beside `data`, as Redis returns them (null when absent). */
export interface MutableTaskFields {
  status: string | null;
  startedAt: string | null;
  lastAttemptedAt: string | null;
  workers: string | null;
  /** When a cancel was asked of the leased task (ms, cancel-5.lua writes it); absent when none. */
  cancel?: string | null;
}

/**
 * The hash fields HMGET asks for: `data`, the MutableTaskFields in their
 * order, `outcome` (set once the task finished, with the attempt's last
 * progress in it), then `progress` (set by storeProgress.lua while an
 * attempt runs), and `cancel` (see MutableTaskFields).
 */
export const TASK_HASH_FIELDS = [
  'data',
  'status',
  'startedAt',
  'lastAttemptedAt',
  'workers',
  'outcome',
  'progress',
  'cancel',
] as const;

/**
 * The `outcome` field of a finished task: what the worker changed in the
 * record it leased. Every finished task writes one, so the keys are short.
 * `data` keeps the rest (task, enqueuedAt, args).
 */
export interface OutcomeJson {
  /** status: SUCCESSFUL, FAILED or CANCELLED */
  s: TaskResultStatus;
  /** finishedAt (ms) */
  f: number | null;
  /** workerIds */
  w: string[];
  /** errors, when there are any */
  e?: TaskErrorRecord[];
  /** returnValue, when SUCCESSFUL */
  r?: unknown;
  /**
   * progress: the last value the attempt reported, stored with its outcome
   * (when it reported any); read in place of the `progress` field.
   */
  p?: unknown;
}

/** The `outcome` of a task whose `data` could not be read: the whole final record. */
export interface WholeOutcomeJson {
  record: TaskRecordJson;
}

// Stored only when they differ from what every new task has, so a waiting task stays small.
export type CompactJson = Omit<Partial<TaskRecordJson>, 'task'> & {
  task?: Partial<TaskRecordJson['task']>;
};
