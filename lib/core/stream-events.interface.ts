import type { FinalStatus } from './task-result-status.enum';
import type { TaskRecord } from './task-record.interface';
import type { TaskRecordSource, TaskResult } from './task-result';

/**
 * What every task event carries: the task's record at that moment, and where
 * its result is read again, so a listener that needs a TaskResult builds one
 * (and one that counts builds nothing).
 */
export interface TaskStreamEvent {
  readonly record: TaskRecord;
  readonly source: TaskRecordSource;
}

/** A task stored new (in the process that enqueued it). */
export interface TaskEnqueuedEvent extends TaskStreamEvent {
  /** The very result the enqueue call returns, when one made the event: its listeners get that object. */
  readonly result?: TaskResult;
}

/** An attempt ended, in the process that ran it; `record` is the attempt as it ended. */
export interface AttemptEndedEvent extends TaskStreamEvent {
  /** How long the attempt ran in this process (ms, monotonic clock). */
  readonly durationMs: number;
}

/** An attempt ended the task for good: SUCCESSFUL, CANCELLED, or FAILED with no attempt left. */
export interface TaskFinishedEvent extends AttemptEndedEvent {
  readonly status: FinalStatus;
}

/** What someone did through the web dashboard (ThreadmillDashboardModule). */
export interface DashboardActionEvent {
  /** Who, as the dashboard's `identify` option names the request; undefined when it names no one. */
  readonly who: string | undefined;
  /** `cancel`, `retry`, `remove`, `pause`, `resume`, `limits` or `run` (a schedule). */
  readonly action: string;
  /** The backend alias acted on. */
  readonly alias: string;
  /** @deprecated Renamed `alias` (same value) in 0.4.0; kept until 0.5.0. */
  readonly backend: string;
  /** What it acted on, in words: `task <id>`, `queue "emails"`, `failed tasks of queue "emails"`. */
  readonly target: string;
  /** How many tasks (or queues, or schedule runs) it changed. */
  readonly count: number;
}

/**
 * The events of one process, by kind. Task events come from where the task is
 * enqueued or run; child, maintenance and summary events from a pool's main
 * process. Nothing crosses processes: each has its own stream.
 */
export interface StreamEventMap {
  taskEnqueued: TaskEnqueuedEvent;
  /** An attempt began running the task's code (its name resolved to a @Task). */
  taskStarted: TaskStreamEvent;
  /** A progress report was stored; `record.progress` is the value reported. */
  taskProgressed: TaskStreamEvent;
  taskFinished: TaskFinishedEvent;
  /** A FAILED attempt with attempts left: `record` is the attempt (FAILED), the task runs again. */
  taskRetried: AttemptEndedEvent;
  /**
   * A worker that registers no task of its name gave the leased task back,
   * unstarted and no attempt counted (unknownTaskUnleased): `record` is the
   * task READY again, due when it may be leased next.
   */
  taskUnleased: TaskStreamEvent;
  childStarted: { readonly pid: number };
  /** `cause`: the exit code or signal; `reason`: what the child said before it went (`crashed` if nothing). */
  childExited: { readonly pid: number; readonly cause: string; readonly reason: string };
  maintenanceStepFailed: { readonly step: string; readonly error: unknown };
  /** The pool's counts since it started, and its rate since the last summary. */
  poolSummary: {
    readonly done: number;
    readonly failed: number;
    readonly ratePerSecond: number;
    readonly children: number;
  };
  /** An action taken through the web dashboard, in the process that serves it. */
  dashboardAction: DashboardActionEvent;
}

export type StreamEventKind = keyof StreamEventMap;

/** Hears one kind of event; called synchronously by the emitter. */
export type StreamListener<K extends StreamEventKind> = (event: StreamEventMap[K]) => void;
