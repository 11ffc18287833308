import type { BackendTelemetry } from '../core/backend-telemetry.interface';
import type { ScheduleStore } from '../core/ports/schedule-store.port';
import type { ControlStore } from '../core/ports/control-store.port';
import type { ReadStore } from '../core/ports/read-store.port';
import type { TaskStore } from '../core/ports/task-store.port';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import type { InspectorScheduleRow } from './inspector-schedules';

/**
 * What the inspector holds and is given, as plain data: the state the screen
 * renders and the options an InspectorStore starts from.
 *
 * @internal
 */

export type InspectorPane = 'backends' | 'queues' | 'tasks' | 'detail';

/**
 * The part of a TaskBackend the inspector uses: reads only, so the compiler
 * (not just review) keeps it from ever writing to a backend.
 */
export type InspectorBackend = Pick<TaskBackend, 'alias' | 'queues'> & {
  readonly reads: Pick<ReadStore, 'peek' | 'telemetry'>;
  readonly control: Pick<ControlStore, 'pausedQueues'>;
  readonly tasks: Pick<TaskStore, 'getResult'>;
  /** The backend's schedules, read only . */
  readonly schedules: Pick<ScheduleStore, 'listSchedules'>;
};

/** What the right-hand pane lists: the selected queue's tasks, or the backend's schedules. */
export type InspectorView = 'tasks' | 'schedules';

export interface InspectorState {
  readonly aliases: readonly string[];
  readonly aliasIndex: number;
  readonly queues: readonly string[];
  readonly queueIndex: number;
  /** Index into INSPECTOR_TABS. */
  readonly tabIndex: number;
  readonly focus: InspectorPane;
  /** Last telemetry of the selected backend; null until the first answer. */
  readonly telemetry: BackendTelemetry | null;
  /** The paused queues of the selected backend, read with the telemetry. */
  readonly paused: readonly string[];
  /** The first `pageSize` tasks of the selected queue and tab, best first. */
  readonly tasks: readonly TaskRecord[];
  /** False until the first peek of the current queue and tab answered. */
  readonly tasksLoaded: boolean;
  readonly taskIndex: number;
  /** The task shown in the detail pane, or null when the pane is closed. */
  readonly detail: TaskRecord | null;
  /** Why the detail may be out of date (the task expired), or null. */
  readonly detailNote: string | null;
  readonly detailScroll: number;
  readonly view: InspectorView;
  /** The backend's schedules (at most `pageSize`); null until the view's first read answered. */
  readonly schedules: readonly InspectorScheduleRow[] | null;
  readonly scheduleIndex: number;
  /** Why the backend cannot be read right now, or null while it answers. */
  readonly error: string | null;
  /** When the state was last refreshed from the backend (relative times count from here). */
  readonly now: Date;
}

/** The task list and detail as they are before a list loads: empty, nothing open. */
export const NO_TASKS = {
  tasks: [],
  tasksLoaded: false,
  taskIndex: 0,
  detail: null,
  detailNote: null,
  detailScroll: 0,
} as const satisfies Partial<InspectorState>;

export interface InspectorStoreOptions {
  /** The backends to inspect, in selector order. */
  readonly backends: readonly InspectorBackend[];
  /** Alias selected at start; default: the first backend. */
  readonly initialAlias?: string;
  /** Period of the count refresh (and of the retries while the backend is down). Default 2 s. */
  readonly refreshIntervalMs?: number;
  /** Most tasks read per list (the peek limit): a few screens of rows. Default 100. */
  readonly pageSize?: number;
  /** A read that takes longer counts as unreachable. Default 5 s. */
  readonly readTimeoutMs?: number;
  readonly clock?: () => Date;
}

/** The store's state, shared with the reads that fill it. */
export interface InspectorStateCell {
  get(): InspectorState;
  set(patch: Partial<InspectorState>): void;
}
