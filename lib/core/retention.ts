import { FINISHED_STATUSES, type TaskResultStatus } from './task-result-status.enum';

/** How many finished tasks of one queue and status are kept, and for how long. */
export interface RetentionLimit {
  /** Longest a result is kept after it finished (ms). Default: the backend's resultTtl. */
  maxAgeMs?: number;
  /** Most results kept; the oldest go first. Default: no limit. */
  maxCount?: number;
}

/** Limits by final status: `successful`, `failed` (and every final status added later). */
export type RetentionByStatus = Partial<Record<Lowercase<TaskResultStatus>, RetentionLimit>>;

/**
 * `retention` of a backend: how long and how many finished tasks it keeps,
 * by final status, and per queue where one queue needs other limits.
 *
 * @example
 * ```ts
 * retention: {
 *   successful: { maxAgeMs: 3_600_000, maxCount: 100_000 },
 *   failed: { maxAgeMs: 7 * 86_400_000 },
 *   queues: { emails: { successful: { maxCount: 1000 } } },
 * }
 * ```
 * @publicApi
 */
export interface RetentionOptions extends RetentionByStatus {
  queues?: Record<string, RetentionByStatus>;
}

/** One queue and status's limit, resolved: an age always, a count or none. */
export interface ResolvedLimit {
  readonly maxAgeMs: number;
  readonly maxCount: number | null;
}

/** The status word of the options (`successful` for SUCCESSFUL). */
export const statusKey = (status: TaskResultStatus): Lowercase<TaskResultStatus> =>
  status.toLowerCase() as Lowercase<TaskResultStatus>;

/** One queue and final status with the limit its finished tasks are trimmed to. */
export interface RetentionEntry {
  queue: string;
  status: TaskResultStatus;
  limit: ResolvedLimit;
}

/**
 * The retention of one backend, resolved for every queue and final status:
 * the one rule the trimming step of every backend applies. A queue's limit
 * overrides the status's, which overrides the backend's resultTtl (age) and
 * no limit (count).
 */
export class Retention {
  /** The longest any result is kept: how long a finished task's data may live in the store. */
  readonly longestMaxAgeMs: number;

  constructor(
    private readonly options: RetentionOptions,
    private readonly resultTtlMs: number,
    queues: readonly string[],
  ) {
    let longest = resultTtlMs;
    for (const queue of queues) {
      for (const status of FINISHED_STATUSES) {
        longest = Math.max(longest, this.limitFor(queue, status).maxAgeMs);
      }
    }
    this.longestMaxAgeMs = longest;
  }

  limitFor(queue: string, status: TaskResultStatus): ResolvedLimit {
    const key = statusKey(status);
    const own = this.options.queues?.[queue]?.[key];
    const shared = this.options[key];
    return {
      maxAgeMs: own?.maxAgeMs ?? shared?.maxAgeMs ?? this.resultTtlMs,
      maxCount: own?.maxCount ?? shared?.maxCount ?? null,
    };
  }

  /** Every queue and final status with its limit, as the trimming step walks them. */
  *limits(queues: readonly string[]): Iterable<RetentionEntry> {
    for (const queue of queues) {
      for (const status of FINISHED_STATUSES) {
        yield { queue, status, limit: this.limitFor(queue, status) };
      }
    }
  }
}
