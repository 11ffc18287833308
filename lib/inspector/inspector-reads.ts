import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import type { StoredSchedule } from '../core/ports/schedule-store.port';
import {
  backendUnreachable,
  inspectorRetrying,
  inspectorTaskGone,
} from '../core/threadmill.messages';
import { promiseTimeout } from '../utils/promise-timeout.util';
import { type InspectorScheduleRow, scheduleRow } from './inspector-schedules';
import type { InspectorBackend, InspectorStateCell } from './inspector-state';
import { INSPECTOR_TABS } from './inspector.view';

/**
 * The inspector's reads of the selected backend: its counts, the task list
 * of the selected queue and tab, and the open task's detail. Each answer
 * lands in the store's state; a failed read becomes the state's `error`,
 * so none of these ever rejects.
 *
 * @internal
 */

export interface InspectorReadSettings {
  readonly backends: readonly InspectorBackend[];
  readonly refreshIntervalMs: number;
  readonly pageSize: number;
  readonly readTimeoutMs: number;
  readonly clock: () => Date;
}

export class InspectorReads {
  /** Answers to reads that were superseded (another queue, tab or backend) are dropped by these. */
  private countsSeq = 0;
  private tasksSeq = 0;
  private detailSeq = 0;
  private schedulesSeq = 0;
  private countsInFlight = false;
  /** The current list read has not answered yet. */
  private tasksPending = false;
  private stopped = false;

  constructor(
    private readonly state: InspectorStateCell,
    private readonly settings: InspectorReadSettings,
  ) {}

  start(): void {
    this.stopped = false;
  }

  /** Answers still out are dropped, and no read starts until `start()`. */
  stop(): void {
    this.stopped = true;
  }

  /** The counts read still out is dropped, and the next one need not wait for it. */
  dropCountsRead(): void {
    this.countsSeq++;
    this.countsInFlight = false;
  }

  /** The list and detail reads still out are dropped (the list they answer is gone). */
  dropTaskReads(): void {
    this.tasksSeq++;
    this.detailSeq++;
  }

  /** The schedules read still out is dropped (another backend, or the view closed). */
  dropSchedulesRead(): void {
    this.schedulesSeq++;
  }

  /**
   * The backend's schedules, each with its last tick's task status (a read
   * per schedule, at most `pageSize` of them). Never rejects.
   */
  loadSchedules(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const seq = ++this.schedulesSeq;
    return this.read('schedules', (backend) => this.scheduleRows(backend)).then(
      (schedules) => {
        if (seq !== this.schedulesSeq || this.stopped) return;
        const scheduleIndex = Math.min(
          this.state.get().scheduleIndex,
          Math.max(0, schedules.length - 1),
        );
        this.state.set({ schedules, scheduleIndex, now: this.settings.clock() });
      },
      (error: unknown) => {
        if (seq === this.schedulesSeq && !this.stopped) this.unreachable(error);
      },
    );
  }

  private async scheduleRows(backend: InspectorBackend): Promise<InspectorScheduleRow[]> {
    const stored = backend.schedules ? await backend.schedules.listSchedules() : [];
    const rows: InspectorScheduleRow[] = [];
    for (const schedule of stored.slice(0, this.settings.pageSize)) {
      rows.push(scheduleRow(schedule, await lastStatus(backend, schedule)));
    }
    return rows;
  }

  /** The detail read still out is dropped (another task is open, or none). */
  dropDetailRead(): void {
    this.detailSeq++;
  }

  /** Resolves when this read settled (never rejects: a failure is shown as state). */
  refreshCounts(): Promise<void> {
    // One telemetry read at a time: while a slow backend answers, the next
    // tick is skipped instead of piling up reads behind it.
    if (this.countsInFlight || this.stopped) return Promise.resolve();
    this.countsInFlight = true;
    const seq = ++this.countsSeq;
    const { refreshIntervalMs, clock } = this.settings;
    return this.read('telemetry', (b) =>
      Promise.all([b.reads.telemetry(refreshIntervalMs), b.control.pausedQueues()]),
    )
      .then(
        ([telemetry, paused]) => {
          if (seq !== this.countsSeq || this.stopped) return;
          const recovered = this.state.get().error !== null;
          this.state.set({ telemetry, paused, error: null, now: clock() });
          // The list may have failed while the backend was down: read it again.
          if (recovered || (!this.state.get().tasksLoaded && !this.tasksPending)) {
            void this.loadTasks();
          }
        },
        (error: unknown) => {
          if (seq === this.countsSeq && !this.stopped) this.unreachable(error);
        },
      )
      .finally(() => {
        this.countsInFlight = false;
      });
  }

  /** Resolves when this read settled (never rejects: a failure is shown as state). */
  loadTasks(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const { queues, queueIndex, tabIndex } = this.state.get();
    const queue = queues[queueIndex];
    if (queue === undefined) return Promise.resolve();
    const seq = ++this.tasksSeq;
    this.tasksPending = true;
    const segment = INSPECTOR_TABS[tabIndex].segment;
    return this.read('peek', (b) => b.reads.peek(queue, segment, this.settings.pageSize)).then(
      (tasks) => {
        if (seq !== this.tasksSeq || this.stopped) return;
        this.tasksPending = false;
        const state = this.state.get();
        // Keep the cursor on the same task when it is still listed.
        const selectedId = state.tasksLoaded ? state.tasks[state.taskIndex]?.id : undefined;
        const kept = selectedId === undefined ? -1 : tasks.findIndex((t) => t.id === selectedId);
        const taskIndex =
          kept >= 0 ? kept : Math.min(state.taskIndex, Math.max(0, tasks.length - 1));
        const detailId = state.detail?.id;
        const newer = detailId === undefined ? undefined : tasks.find((t) => t.id === detailId);
        this.state.set({
          tasks,
          tasksLoaded: true,
          taskIndex,
          detail: newer ?? state.detail,
          now: this.settings.clock(),
        });
      },
      (error: unknown) => {
        if (seq !== this.tasksSeq || this.stopped) return;
        this.tasksPending = false;
        this.unreachable(error);
      },
    );
  }

  /** Reads the open task again; a task that expired meanwhile stays on screen with a note. */
  reloadDetail(): void {
    const id = this.state.get().detail?.id;
    if (id === undefined || this.stopped) return;
    const seq = ++this.detailSeq;
    const stillOpen = (): boolean => seq === this.detailSeq && this.state.get().detail?.id === id;
    this.read('getResult', (b) => b.tasks.getResult(id)).then(
      (record) => {
        if (stillOpen()) this.state.set({ detail: record, detailNote: null });
      },
      (error: unknown) => {
        if (!stillOpen()) return;
        if (error instanceof TaskResultDoesNotExist) {
          this.state.set({ detailNote: inspectorTaskGone(id) });
        } else {
          this.unreachable(error);
        }
      },
    );
  }

  private read<T>(what: string, call: (backend: InspectorBackend) => Promise<T>): Promise<T> {
    const backend = this.settings.backends[this.state.get().aliasIndex];
    if (backend === undefined) return Promise.reject(new RangeError('no backend selected'));
    // A backend whose connection is down may hold a command until it comes
    // back; bounding each read is what lets the screen say so meanwhile.
    return promiseTimeout(
      call(backend),
      this.settings.readTimeoutMs,
      `${what} on "${backend.alias}"`,
    );
  }

  private unreachable(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    const { aliases, aliasIndex } = this.state.get();
    const alias = aliases[aliasIndex] ?? '';
    this.state.set({
      // The retry note first: a long reason is cut at the screen's edge, the note must not be.
      error: `${inspectorRetrying(this.settings.refreshIntervalMs)} ${backendUnreachable(alias, reason)}`,
      now: this.settings.clock(),
    });
  }
}

/** The status of a schedule's last tick's task: `expired` once its result is gone. */
async function lastStatus(
  backend: InspectorBackend,
  schedule: StoredSchedule,
): Promise<InspectorScheduleRow['lastStatus']> {
  if (schedule.lastTick === null) return null;
  try {
    return (await backend.tasks.getResult(schedule.lastTick.taskId)).status;
  } catch (error) {
    if (error instanceof TaskResultDoesNotExist) return 'expired';
    throw error;
  }
}
