import type { ManualRetryOutcome, RemoveOutcome } from './manual-retry';
import type { QueueLimits } from './queue-limits';
import { shown, shownList } from './shown';

/**
 * The user-facing sentences of controlling running work (time limits,
 * cancelling, pausing a queue, retrying and removing finished tasks by
 * hand), written once (as threadmill.messages.ts).
 */

export const invalidTimeoutMs = (taskName: string, value: unknown): string =>
  `Task ${shown(taskName)}: timeoutMs must be a whole number of milliseconds above 0 (got ${String(value)}).`;

export const timeoutNotBelowLease = (
  taskName: string,
  timeoutMs: number,
  alias: string,
  leaseTtlMs: number,
): string =>
  `Task ${shown(taskName)}: timeoutMs (${timeoutMs} ms) must be below the lease of backend ${shown(alias)} ` +
  `(leaseTtl ${leaseTtlMs} ms), which fails an unacknowledged attempt anyway. Lower timeoutMs or ` +
  `raise the backend's leaseTtl.`;

export const taskTimedOut = (id: string, taskName: string, timeoutMs: number): string =>
  `Task ${shown(taskName)} (${id}) ran past its timeoutMs (${timeoutMs} ms): its attempt failed and ` +
  `its TaskContext.signal was aborted. Raise timeoutMs if the task was merely slow.`;

export const invalidHardStopAfterMs = (taskName: string, value: unknown): string =>
  `Task ${shown(taskName)}: cancel.hardStopAfterMs must be a whole number of milliseconds above 0 ` +
  `(got ${String(value)}).`;

export const taskCancelled = (id: string, taskName: string): string =>
  `Task ${shown(taskName)} (${id}) was cancelled: it is final and will not be retried.`;

export const invalidCancelFilter = (filter: string): string =>
  `cancelWaiting needs { queue } or { taskName } naming what to cancel, got ${filter}.`;

export const unknownQueue = (queue: string, alias: string, queues: readonly string[]): string =>
  `Threadmill backend ${shown(alias)} has no queue ${shown(queue)} (configured: ${shownList(queues)}). Name one of those, or add it to the backend's queues.`;

export const queuePaused = (queue: string, alias: string): string =>
  `Paused queue ${shown(queue)} of backend ${shown(alias)}: no worker pool starts its tasks (running ones ` +
  `finish, enqueues are stored) until \`threadmill queues resume ${queue}\`.`;

export const queueResumed = (queue: string, alias: string): string =>
  `Resumed queue ${shown(queue)} of backend ${shown(alias)}: idle workers take its tasks now.`;

const STATUSES = {
  retryAll: "'FAILED' | 'CANCELLED'",
  removeAll: "'FAILED' | 'CANCELLED' | 'SUCCESSFUL'",
};

export const invalidFinishedFilter = (call: 'retryAll' | 'removeAll', filter: string): string =>
  `${call} needs { queue, status: ${STATUSES[call]}, task? }, got ${filter}.`;

export const manualTarget = (command: 'retry' | 'remove'): string =>
  `${command} needs a task id, or --queue and --status (and optionally --task) naming which ` +
  `final tasks, not both.`;

export const notRetried = (id: string, outcome: Exclude<ManualRetryOutcome, 'retried'>): string =>
  ({
    successful: `Task ${id} succeeded and is not retried; enqueue a new task to run it again.`,
    'not-final': `Task ${id} has not finished (waiting or running), so there is nothing to retry.`,
    'already-retried': `Task ${id} was retried by another call first; that retry is its one new attempt.`,
  })[outcome];

export const notRemoved = (id: string, outcome: Exclude<RemoveOutcome, 'removed'>): string =>
  ({
    'not-final': `Task ${id} has not finished (waiting or running); cancel it first, then remove it.`,
    'already-removed': `Task ${id} was removed by another call first.`,
    'already-retried': `Task ${id} was retried by another call meanwhile, so the attempt read was not removed; read it again.`,
  })[outcome];

/** Limits in one word (no spaces, for a table column): `concurrency=5,rate=100/1000ms`, `-` for none. */
export const limitsWord = (limits: QueueLimits | null): string => {
  const parts: string[] = [];
  if (limits?.concurrency !== undefined) parts.push(`concurrency=${limits.concurrency}`);
  if (limits?.rateLimit) parts.push(`rate=${limits.rateLimit.max}/${limits.rateLimit.perMs}ms`);
  return parts.length > 0 ? parts.join(',') : '-';
};

export const queueLimitsSet = (queue: string, alias: string, limits: QueueLimits | null): string =>
  limits
    ? `Limited queue ${shown(queue)} of backend ${shown(alias)} across every worker pool: ${limitsWord(limits)}.`
    : `Lifted the limits of queue ${shown(queue)} of backend ${shown(alias)}: its tasks start as workers take them.`;

export const limitOptionsMissing = (): string =>
  'give --concurrency <n>, --rate <max/perMs> or both, or --clear alone to lift the limits';
