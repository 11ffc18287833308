/**
 * User-facing text of the worker pool and its children, written once. The
 * commands' texts are in cli/command.messages.ts, the lifecycle's in
 * lifecycle/lifecycle.messages.ts.
 */

import { shown, shownList } from '../core/shown';
import type { TaskTraceContext } from '../core/task-record.interface';
import { traceIdOf } from '../core/trace-id';

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

// ---- the pool's log lines ----

export const poolStarted = (
  pid: number,
  alias: string,
  queues: readonly string[],
  processes: number,
  threads: number,
): string =>
  `Worker pool ${pid} started on backend ${shown(alias)}, queues ${shownList(queues)}: ` +
  `${processes} process(es) x ${threads} slot(s).`;

export const childStarted = (pid: number): string => `Worker child ${pid} started.`;

export const childReady = (pid: number): string => `Worker child ${pid} is ready.`;

export const childExited = (pid: number, cause: string, reason: string): string =>
  `Worker child ${pid} exited (${cause}): ${reason}.`;

export const childBootFailed = (pid: number, cause: string, retryMs: number): string =>
  `Worker child ${pid} died before it was ready (${cause}); starting another in ${retryMs} ms.`;

export const childForkFailed = (error: unknown): string =>
  `Could not start a worker child (${describe(error)}); trying again.`;

export const ipcSendFailed = (pid: number, error: unknown): string =>
  `Could not message worker child ${pid} (${describe(error)}); it is exiting.`;

export const childKilledAfterGrace = (pid: number, graceMs: number): string =>
  `Worker child ${pid} did not exit within ${graceMs} ms of an urgent stop; killing it.`;

export const childWedged = (pid: number, silentForMs: number, stopping: boolean): string =>
  `Worker child ${pid} has not answered for ${silentForMs} ms: a task blocks its event loop. ` +
  (stopping
    ? `Killing it; its unfinished tasks go back to their queues.`
    : `Killing it and starting another; its tasks are retried or failed per their retry policy. ` +
      `A task that may block this long declares it: @Task({ blockingMs }).`);

export const wedgedCause = (silentForMs: number): string =>
  `a kill by its pool after ${silentForMs} ms without answering (a task blocked its event loop)`;

/** Who left it: `task "name" (id)`, or that no task can be told. */
const leftBy = (task: { id: string; task: { name: string } } | undefined): string =>
  task ? `Task ${shown(task.task.name)} (${task.id})` : 'Code outside any task';

const stackOf = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

export const taskLeftRejection = (
  task: { id: string; task: { name: string } } | undefined,
  reason: unknown,
): string =>
  `${leftBy(task)} left a promise rejection that nothing handled; the worker goes on. ` +
  `${stackOf(reason)}`;

export const taskLeftUncaughtException = (
  task: { id: string; task: { name: string } } | undefined,
  error: unknown,
): string =>
  `${leftBy(task)} threw an exception that nothing caught (from a timer or a callback); ` +
  `this worker process finishes the tasks it runs, then exits to be replaced. ${stackOf(error)}`;

export const exitCause = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal !== null ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`;

/** What became of a dead child's tasks. */
export interface CrashRecoveryCounts {
  readonly failed?: number;
  readonly retried?: number;
  /** Back in their queues unfinished, the run counted (an urgent stop). */
  readonly released?: number;
  /** Never started: back in their queues, no attempt counted. */
  readonly unleased?: number;
}

export const crashRecovered = (
  pid: number,
  { failed = 0, retried = 0, released = 0, unleased = 0 }: CrashRecoveryCounts,
): string =>
  `Recovered the tasks of worker child ${pid}: ${failed} failed, ${retried} retried, ` +
  `${released} released, ${unleased} never started and given back.`;

export const poolHeartbeatFailed = (poolId: string, error: unknown): string =>
  `Worker pool ${shown(poolId)} could not write its heartbeat (${describe(error)}); ` +
  `if that lasts, other pools will consider it dead and recover its tasks.`;

export const crashRecoveryFailed = (pid: number, ids: readonly string[], error: unknown): string =>
  `Could not recover ${ids.length} task(s) of worker child ${pid} (${describe(error)}); ` +
  `a maintenance pass fails them when their lease expires.`;

export const childSessionsNotEnded = (pid: number, error: unknown): string =>
  `Could not end the store sessions of dead worker child ${pid} (${describe(error)}); ` +
  `its leases are searched again after a fixed delay instead, and one committed later ` +
  `stays RUNNING until its lease expires.`;

export const shutdownRequested = (cause: string, urgent: boolean): string =>
  urgent
    ? `Urgent stop (${cause}): releasing unfinished tasks back to their queues.`
    : `Graceful stop (${cause}): finishing the tasks already acquired. Send the signal again, a second or more from now, to release them instead.`;

export const poolStopped = (done: number, failed: number): string =>
  `Worker pool stopped: ${done} task(s) done, ${failed} failed.`;

export const poolDrained = (): string => `Queues drained (--exit-empty).`;

export const poolSummary = (
  done: number,
  failed: number,
  ratePerSecond: number,
  children: number,
): string =>
  `${done} task(s) done, ${failed} failed, ${ratePerSecond.toFixed(1)}/s recently, ${children} child(ren) alive.`;

export const maintenanceStepFailed = (step: string, error: unknown): string =>
  `Maintenance step ${shown(step)} failed: ${describe(error)}`;

export const storeUnreachableAtStart = (alias: string, error: unknown): string =>
  `Backend ${shown(alias)} does not answer (${describe(error)}). The pool keeps trying and takes ` +
  `tasks once it does; a stop signal ends it meanwhile.`;

export const queuePausedAtStart = (alias: string, queue: string): string =>
  `Queue ${shown(queue)} of backend ${shown(alias)} is paused: no pool starts its tasks until ` +
  `\`threadmill queues resume ${queue}\` (this pool takes its other queues meanwhile).`;

export const pausedQueuesUnread = (alias: string, error: unknown): string =>
  `Could not read which queues of backend ${shown(alias)} are paused (${describe(error)}); the ` +
  `pool starts all the same and leases only what is not paused.`;

export const maintenancePassFailed = (error: unknown): string =>
  `Maintenance pass failed: ${describe(error)}`;

// ---- a child's log lines ----

/** What a task's log lines name: its id, its name and, when it was enqueued inside a trace, that trace. */
export interface LoggedTask {
  readonly id: string;
  readonly task: { readonly name: string; readonly traceContext?: TaskTraceContext };
}

/** ` trace=<id>` for a task enqueued inside a trace, so its lines can be found from the trace. */
const traceSuffix = ({ task }: LoggedTask): string => {
  const traceId = traceIdOf(task.traceContext);
  return traceId === undefined ? '' : ` trace=${traceId}`;
};

export const taskStartedLine = (task: LoggedTask, workerId: string): string =>
  `start ${task.task.name} ${task.id} on ${workerId}${traceSuffix(task)}`;

export const taskFinishedLine = (task: LoggedTask, durationMs: number, status: string): string =>
  `${status} ${task.task.name} ${task.id} in ${durationMs.toFixed(1)} ms${traceSuffix(task)}`;

export const acquireFailed = (alias: string, error: unknown): string =>
  `Acquiring from backend ${shown(alias)} failed (${describe(error)}); retrying.`;

export const heldJournalFailed = (error: unknown): string =>
  `Cannot write the journal of held tasks (${describe(error)}); working on without it. ` +
  `If this worker dies, its tasks are found by the pool's search of running tasks or failed ` +
  `when their lease ends. Check that the temporary directory is writable and has space.`;

export const journalDirFailed = (dir: string, error: unknown): string =>
  `Cannot make a folder for the workers' journals of held tasks in ${dir} (${describe(error)}). ` +
  `The pool runs on; if a worker dies, its tasks are found by the search of running tasks or ` +
  `failed when their lease ends. Point TMPDIR at a writable directory to journal them.`;

export const orphanedLeasesUnleased = (count: number, alias: string): string =>
  `${count} task(s) of backend ${shown(alias)} were leased to this worker by an acquire whose reply was lost ` +
  `with the connection; they never started and went back to their queue.`;

export const acknowledgeFailed = (
  count: number,
  attempt: number,
  error: unknown,
  retryInMs: number | null,
): string =>
  `Storing the outcome of ${count} task(s) failed (attempt ${attempt}): ${describe(error)}` +
  (retryInMs === null
    ? '; giving up on an urgent stop (the pool puts them back in their queues).'
    : `; holding the outcomes and trying again in ${retryInMs} ms (no new task is taken meanwhile).`);

/** Why a store of a finished attempt (an acknowledge or a retry) changed nothing. */
export const staleAcknowledge = (
  id: string,
  outcome: 'stale' | 'already-stored' = 'stale',
): string =>
  outcome === 'already-stored'
    ? `Task ${id}: what this attempt reported was already stored, by an earlier call whose ` +
      `reply was lost; nothing changed.`
    : `Task ${id} finished after its lease was gone (it ran out, or its pool was taken for ` +
      `lost); what this attempt reported was not stored, and the task keeps what was stored ` +
      `for it then (failed, or retried per its policy).`;

export const taskAbandoned = (task: LoggedTask, status: string): string =>
  `Task ${shown(task.task.name)} (${task.id}) never settled and its lease is gone (now ${status}); ` +
  `its slot is freed and whatever it returns later is dropped.${traceSuffix(task)}`;

/** Why a child put leased tasks back in their queues (see LeaseGiveBack). */
export type ReleaseOrUnleaseReason =
  | 'urgent stop'
  | 'stopping before they started'
  | 'leased after an urgent stop'
  | 'waited longer than the prefetch wait'
  | 'their queue is paused'
  | 'their timeoutMs no longer fits in their lease';

export const releasedOrUnleased = (
  ids: readonly string[],
  reason: ReleaseOrUnleaseReason,
  ran: boolean,
): string => {
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  return (
    `Put ${ids.length} task(s) back in their queues (${reason}): ${shown}; ` +
    (ran
      ? 'their interrupted runs count as attempts.'
      : 'they never started, so no attempt counts.')
  );
};

export const releaseFailed = (ids: readonly string[], error: unknown): string =>
  `Releasing ${ids.length} unfinished task(s) failed (${describe(error)}); the lease reaper fails them later.`;

export const unleaseFailed = (ids: readonly string[], error: unknown): string =>
  `Giving back ${ids.length} task(s) that never started failed (${describe(error)}); ` +
  `they stay leased until their lease runs out.`;

export const orphanSearchFailed = (alias: string, error: unknown): string =>
  `Looking for tasks of backend ${shown(alias)} leased to this worker by a lost reply failed: ` +
  `${describe(error)}; trying again before the next acquire.`;

export const workerHealthListening = (port: number): string =>
  `Health endpoint listening on port ${port} (200 while the pool is healthy, 503 otherwise).`;

export const cancelPollFailed = (poolId: string, error: unknown): string =>
  `Reading the cancel requests of pool ${poolId} failed (tried again shortly): ${String(error)}`;

export const taskCancelRequested = (task: LoggedTask): string =>
  `Task ${shown(task.task.name)} (${task.id}): cancel requested, its signal is aborted.${traceSuffix(task)}`;

export const childHardStopped = (pid: number, id: string, reason: 'cancel' | 'timeout'): string =>
  reason === 'cancel'
    ? `Worker child ${pid} still runs cancelled task ${id} past its cancel.hardStopAfterMs: killing ` +
      `it and starting another; the task ends CANCELLED, the others it held go back to their queues.`
    : `Worker child ${pid} still runs task ${id} past its timeoutMs, ignoring its signal: killing ` +
      `it and starting another; the attempt fails with TaskTimeoutError (retried as its policy ` +
      `allows), the others it held go back to their queues.`;

export const hardStopCause = (id: string, reason: 'cancel' | 'timeout'): string =>
  reason === 'cancel'
    ? `killed to stop cancelled task ${id}`
    : `killed to end task ${id}, past its timeoutMs`;

export const prefetchCheckFailed = (alias: string, error: unknown): string =>
  `Could not read which queues of backend ${shown(alias)} are paused for the prefetched tasks ` +
  `(${describe(error)}); looking again in a moment.`;

export const prefetchNotWhole = (value: unknown): string =>
  `prefetch expects a whole number of at least 0 (got ${String(value)}).`;
