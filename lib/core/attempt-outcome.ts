import { performance } from 'node:perf_hooks';

import type { EventStream } from './event-stream';
import { hasAttemptsLeft } from './retry-policy';
import type { TaskDescriptor, TaskRecord } from './task-record.interface';
import type { TaskRecordSource } from './task-result';
import { type FinalStatus, TaskResultStatus } from './task-result-status.enum';

/** What an ended attempt counts as: a task finished with its final status, or a retry. */
export type AttemptOutcome =
  { readonly counts: 'finished'; readonly status: FinalStatus } | { readonly counts: 'retry' };

/** The part of an ended attempt (its record, or a TaskResult of it) the outcome is read from. */
export interface EndedAttempt {
  readonly status: TaskResultStatus;
  readonly task: Pick<TaskDescriptor, 'retries'>;
  /** How many times a worker started the task, this attempt included. */
  readonly attempts: number;
}

// Shared and frozen: deciding the outcome of each attempt a worker ends allocates nothing.
const RETRY: AttemptOutcome = Object.freeze({ counts: 'retry' });
const FINISHED: Readonly<Record<FinalStatus, AttemptOutcome>> = Object.freeze({
  [TaskResultStatus.SUCCESSFUL]: Object.freeze({
    counts: 'finished',
    status: TaskResultStatus.SUCCESSFUL,
  }),
  [TaskResultStatus.FAILED]: Object.freeze({ counts: 'finished', status: TaskResultStatus.FAILED }),
  [TaskResultStatus.CANCELLED]: Object.freeze({
    counts: 'finished',
    status: TaskResultStatus.CANCELLED,
  }),
});

/**
 * How an attempt that ended counts: SUCCESSFUL and CANCELLED are final; a
 * FAILED attempt is a retry while the task has attempts left (the rule
 * nextAttempt applies), final otherwise. Null for a status no attempt ends with.
 */
export function attemptOutcome(attempt: EndedAttempt): AttemptOutcome | null {
  switch (attempt.status) {
    case TaskResultStatus.SUCCESSFUL:
    case TaskResultStatus.CANCELLED:
      return FINISHED[attempt.status];
    case TaskResultStatus.FAILED:
      return hasAttemptsLeft(attempt.task, attempt.attempts)
        ? RETRY
        : FINISHED[TaskResultStatus.FAILED];
    default:
      return null;
  }
}

/**
 * Announces an attempt that ended on `stream`: `taskFinished` with its final
 * status, or `taskRetried`. Nothing is built while neither is heard.
 *
 * @param startedAt when the attempt started, by `performance.now()`.
 */
export function announceEndedAttempt(
  stream: EventStream,
  record: TaskRecord,
  source: TaskRecordSource,
  startedAt: number,
): void {
  if (!stream.listens('taskFinished') && !stream.listens('taskRetried')) return;
  const durationMs = performance.now() - startedAt;
  const outcome = attemptOutcome({
    status: record.status,
    task: record.task,
    attempts: record.workerIds.length,
  });
  if (outcome?.counts === 'retry') {
    stream.emit('taskRetried', { record, source, durationMs });
  } else if (outcome?.counts === 'finished') {
    stream.emit('taskFinished', { record, source, durationMs, status: outcome.status });
  }
}
