/**
 * User-facing text of the in-process worker (ThreadmillModule's
 * `inProcessWorker` option), written once.
 */

import { shown, shownList } from '../../core/shown';

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const OPTION = 'ThreadmillModule option "inProcessWorker"';

export const inProcessWorkerOptionInvalid = (
  option: string,
  value: unknown,
  expected: string,
): string => `${OPTION}: ${option} ${shown(value)} is invalid; it expects ${expected}.`;

export const inProcessWorkerBackendNotConfigured = (
  alias: string,
  aliases: readonly string[],
): string =>
  `${OPTION}: backend ${shown(alias)} is not configured (configured: ${shownList(aliases)}). ` +
  `Name one of them, or leave "backend" out for the default one.`;

export const inProcessWorkerQueueNotConfigured = (
  queue: string,
  alias: string,
  queues: readonly string[],
): string =>
  `${OPTION}: queue ${shown(queue)} is not configured for backend ${shown(alias)} ` +
  `(configured: ${shownList(queues)}). Add it to the backend's "queues", or leave "queues" out for all of them.`;

export const inProcessWorkerBackendRunsOnEnqueue = (alias: string): string =>
  `${OPTION}: backend ${shown(alias)} runs each task as it is enqueued ("immediate"), so no ` +
  `task ever waits for a worker. Turn "immediate" off to have the in-process worker run them, or ` +
  `turn the in-process worker off.`;

export const inProcessWorkerSkipped = (where: 'pool child' | 'command'): string =>
  where === 'pool child'
    ? `In-process worker not started: this process is a child of a worker pool, which runs its own slots.`
    : `In-process worker not started: this process runs a threadmill command.`;

export const inProcessWorkerStarted = (
  alias: string,
  queues: readonly string[],
  threads: number,
  poolId: string,
): string =>
  `In-process worker started on backend ${shown(alias)}, queues ${shownList(queues)}: ` +
  `${threads} slot(s) in this process (pool ${shown(poolId)}).`;

export const inProcessWorkerStopping = (urgent: boolean): string =>
  urgent
    ? `In-process worker: urgent stop, releasing unfinished tasks back to their queues.`
    : `In-process worker: graceful stop, finishing the tasks already acquired. A second ` +
      `SIGTERM or SIGINT, a second or more from now, releases them instead.`;

export const inProcessWorkerStopped = (done: number, failed: number): string =>
  `In-process worker stopped: ${done} task(s) done, ${failed} failed.`;

export const inProcessWorkerFailed = (error: unknown): string =>
  `In-process worker stopped working: ${describe(error)}. The app goes on without it; tasks ` +
  `wait for another worker.`;

export const inProcessWorkerStoreCorrupt = (): string =>
  `The store is damaged, so the in-process worker stops at once (its unfinished tasks are ` +
  `released). The app goes on without it.`;

export const inProcessHardStopImpossible = (id: string, reason: 'cancel' | 'timeout'): string =>
  `Task ${shown(id)} runs past its ${reason === 'cancel' ? 'cancel.hardStopAfterMs' : 'timeoutMs'} ` +
  `and ignores its signal, but the in-process worker cannot end it: its process is the app's. ` +
  `It keeps its slot until its method returns (its attempt is then stored as ` +
  `${reason === 'cancel' ? 'CANCELLED' : 'failed with TaskTimeoutError'}). Run such a task in a worker pool, ` +
  `whose child is killed instead.`;

export const inProcessWorkerUnhealthy = (reason: string): string =>
  `The in-process worker is unhealthy: ${reason}.`;
