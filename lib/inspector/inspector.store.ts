import type { BackendTelemetry } from '../core/backend-telemetry.interface';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import type { QueueSegment, TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import {
  backendUnreachable,
  inspectorRetrying,
  inspectorTaskGone,
} from '../core/threadmill.messages';
import { promiseTimeout } from '../utils/promise-timeout.util';
import { detailLines, INSPECTOR_TABS } from './inspector.view';

/**
 * The inspector's state and behaviour, without a terminal: what is selected,
 * what was read from the backend, and what each key does. The Ink layer
 * (inspector.app.ts) renders `getState()` and forwards key presses, so every
 * rule here is tested without Ink.
 *
 * It only reads: counts come from `telemetry` and rows from `peek` with a
 * limit, so a queue of a million tasks costs the same as a queue of ten.
 *
 * @internal
 */

export type InspectorPane = 'backends' | 'queues' | 'tasks' | 'detail';

/**
 * The part of a TaskBackend the inspector uses: reads only, so the compiler
 * (not just review) keeps it from ever writing to a backend.
 */
export type InspectorBackend = Pick<
  TaskBackend,
  'alias' | 'queues' | 'peek' | 'telemetry' | 'getResult'
>;

/** The task list and detail as they are before a list loads: empty, nothing open. */
const NO_TASKS = {
  tasks: [],
  tasksLoaded: false,
  taskIndex: 0,
  detail: null,
  detailNote: null,
  detailScroll: 0,
} as const satisfies Partial<InspectorState>;

/** A key press, as Ink's `useInput` reports it (only the fields the inspector uses). */
export interface InspectorKey {
  readonly input: string;
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly tab?: boolean;
  readonly shift?: boolean;
  readonly ctrl?: boolean;
}

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
  /** Why the backend cannot be read right now, or null while it answers. */
  readonly error: string | null;
  /** When the state was last refreshed from the backend (relative times count from here). */
  readonly now: Date;
}

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

export type InspectorAction = 'quit' | 'none';

const READY_TAB = INSPECTOR_TABS.findIndex((t) => t.segment === 'ready');
const PAGE_STEP = 10;

export class InspectorStore {
  private state: InspectorState;
  private readonly listeners = new Set<() => void>();
  private readonly refreshIntervalMs: number;
  private readonly pageSize: number;
  private readonly readTimeoutMs: number;
  private readonly clock: () => Date;
  private timer: NodeJS.Timeout | undefined;
  /** Answers to reads that were superseded (another queue, tab or backend) are dropped by these. */
  private countsSeq = 0;
  private tasksSeq = 0;
  private detailSeq = 0;
  private countsInFlight = false;
  /** The current list read has not answered yet. */
  private tasksPending = false;
  /** While the first reads are out, state changes are kept from the screen. */
  private holdNotifications = false;
  private stopped = false;

  constructor(private readonly options: InspectorStoreOptions) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 2000;
    this.pageSize = options.pageSize ?? 100;
    this.readTimeoutMs = options.readTimeoutMs ?? 5000;
    this.clock = options.clock ?? (() => new Date());
    const aliases = options.backends.map((b) => b.alias);
    const aliasIndex = Math.max(0, aliases.indexOf(options.initialAlias ?? aliases[0] ?? ''));
    this.state = {
      aliases,
      aliasIndex,
      queues: options.backends[aliasIndex]?.queues ?? [],
      queueIndex: 0,
      tabIndex: READY_TAB,
      focus: 'tasks',
      telemetry: null,
      ...NO_TASKS,
      error: null,
      now: this.clock(),
    };
  }

  getState = (): InspectorState => this.state;

  /** React's `useSyncExternalStore` contract: call `listener` on every change. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** First reads, then counts every `refreshIntervalMs` until `stop()`. */
  start(): void {
    this.stopped = false;
    // The first counts and rows reach the screen together: one frame drawn
    // instead of two, which is most of the first screen's cost on a busy CPU.
    this.holdNotifications = true;
    void Promise.allSettled([this.refreshCounts(), this.loadTasks()]).then(() => {
      this.holdNotifications = false;
      this.notify();
    });
    this.timer = setInterval(() => void this.refreshCounts(), this.refreshIntervalMs);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The panes Tab cycles through, in screen order. */
  panes(): InspectorPane[] {
    const panes: InspectorPane[] = [];
    if (this.state.aliases.length > 1) panes.push('backends');
    panes.push('queues', 'tasks');
    if (this.state.detail !== null) panes.push('detail');
    return panes;
  }

  /** The segment of the selected tab. */
  segment(): QueueSegment {
    return INSPECTOR_TABS[this.state.tabIndex].segment;
  }

  /** Applies one key press; says whether the inspector should quit. */
  press(key: InspectorKey): InspectorAction {
    const action = this.apply(key);
    // A key is answered at once, even while the first reads are still out.
    if (this.holdNotifications) this.notify();
    return action;
  }

  private apply(key: InspectorKey): InspectorAction {
    const { input } = key;
    // Keys typed (or auto-repeated) faster than the terminal is read arrive
    // as one chunk, e.g. "jjj": each character is a press of its own.
    if (input.length > 1 && [...input].every((char) => char >= ' ')) {
      for (const char of input) {
        if (this.apply({ input: char }) === 'quit') return 'quit';
      }
      return 'none';
    }
    if (input === 'q' && !key.ctrl) return 'quit';
    if (key.tab) {
      this.cycleFocus(key.shift ? -1 : 1);
    } else if (input === 'r') {
      this.refresh();
    } else if (/^[1-5]$/.test(input)) {
      this.selectTab(Number(input) - 1);
    } else if (key.leftArrow) {
      this.selectTab((this.state.tabIndex + INSPECTOR_TABS.length - 1) % INSPECTOR_TABS.length);
    } else if (key.rightArrow) {
      this.selectTab((this.state.tabIndex + 1) % INSPECTOR_TABS.length);
    } else if (key.upArrow || input === 'k') {
      this.move(-1);
    } else if (key.downArrow || input === 'j') {
      this.move(1);
    } else if (key.pageUp) {
      this.move(-PAGE_STEP);
    } else if (key.pageDown) {
      this.move(PAGE_STEP);
    } else if (key.return) {
      this.enter();
    } else if (key.escape) {
      this.closeDetail();
    }
    return 'none';
  }

  /** `r`: counts, the task list and the open detail, read again now. */
  refresh(): void {
    void this.refreshCounts();
    void this.loadTasks();
    this.reloadDetail();
  }

  private backend(): InspectorBackend | undefined {
    return this.options.backends[this.state.aliasIndex];
  }

  private set(patch: Partial<InspectorState>): void {
    this.state = { ...this.state, ...patch };
    if (!this.holdNotifications) this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private read<T>(what: string, call: (backend: InspectorBackend) => Promise<T>): Promise<T> {
    const backend = this.backend();
    if (backend === undefined) return Promise.reject(new RangeError('no backend selected'));
    // A backend whose connection is down may hold a command until it comes
    // back; bounding each read is what lets the screen say so meanwhile.
    return promiseTimeout(call(backend), this.readTimeoutMs, `${what} on "${backend.alias}"`);
  }

  private unreachable(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    const alias = this.state.aliases[this.state.aliasIndex] ?? '';
    this.set({
      // The retry note first: a long reason is cut at the screen's edge, the note must not be.
      error: `${inspectorRetrying(this.refreshIntervalMs)} ${backendUnreachable(alias, reason)}`,
      now: this.clock(),
    });
  }

  /** Resolves when this read settled (never rejects: a failure is shown as state). */
  private refreshCounts(): Promise<void> {
    // One telemetry read at a time: while a slow backend answers, the next
    // tick is skipped instead of piling up reads behind it.
    if (this.countsInFlight || this.stopped) return Promise.resolve();
    this.countsInFlight = true;
    const seq = ++this.countsSeq;
    return this.read('telemetry', (b) => b.telemetry(this.refreshIntervalMs))
      .then(
        (telemetry) => {
          if (seq !== this.countsSeq || this.stopped) return;
          const recovered = this.state.error !== null;
          this.set({ telemetry, error: null, now: this.clock() });
          // The list may have failed while the backend was down: read it again.
          if (recovered || (!this.state.tasksLoaded && !this.tasksPending)) void this.loadTasks();
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
  private loadTasks(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const queue = this.state.queues[this.state.queueIndex];
    if (queue === undefined) return Promise.resolve();
    const seq = ++this.tasksSeq;
    this.tasksPending = true;
    return this.read('peek', (b) => b.peek(queue, this.segment(), this.pageSize)).then(
      (tasks) => {
        if (seq !== this.tasksSeq || this.stopped) return;
        this.tasksPending = false;
        // Keep the cursor on the same task when it is still listed.
        const selectedId = this.state.tasksLoaded
          ? this.state.tasks[this.state.taskIndex]?.id
          : undefined;
        const kept = selectedId === undefined ? -1 : tasks.findIndex((t) => t.id === selectedId);
        const taskIndex =
          kept >= 0 ? kept : Math.min(this.state.taskIndex, Math.max(0, tasks.length - 1));
        const detailId = this.state.detail?.id;
        const newer = detailId === undefined ? undefined : tasks.find((t) => t.id === detailId);
        this.set({
          tasks,
          tasksLoaded: true,
          taskIndex,
          detail: newer ?? this.state.detail,
          now: this.clock(),
        });
      },
      (error: unknown) => {
        if (seq !== this.tasksSeq || this.stopped) return;
        this.tasksPending = false;
        this.unreachable(error);
      },
    );
  }

  private reloadDetail(): void {
    const id = this.state.detail?.id;
    if (id === undefined || this.stopped) return;
    const seq = ++this.detailSeq;
    this.read('getResult', (b) => b.getResult(id)).then(
      (record) => {
        if (seq !== this.detailSeq || this.state.detail?.id !== id) return;
        this.set({ detail: record, detailNote: null });
      },
      (error: unknown) => {
        if (seq !== this.detailSeq || this.state.detail?.id !== id) return;
        if (error instanceof TaskResultDoesNotExist) {
          this.set({ detailNote: inspectorTaskGone(id) });
        } else {
          this.unreachable(error);
        }
      },
    );
  }

  private cycleFocus(step: 1 | -1): void {
    const panes = this.panes();
    const at = Math.max(0, panes.indexOf(this.state.focus));
    this.set({ focus: panes[(at + step + panes.length) % panes.length] });
  }

  private selectTab(tabIndex: number): void {
    if (tabIndex === this.state.tabIndex) return;
    this.set({ tabIndex, ...this.emptyList(), focus: this.listFocus() });
    void this.loadTasks();
  }

  private selectQueue(queueIndex: number): void {
    if (queueIndex === this.state.queueIndex) return;
    this.set({ queueIndex, ...this.emptyList() });
    void this.loadTasks();
  }

  private selectBackend(aliasIndex: number): void {
    if (aliasIndex === this.state.aliasIndex) return;
    const backend = this.options.backends[aliasIndex];
    this.countsSeq++;
    this.countsInFlight = false;
    this.set({
      aliasIndex,
      queues: backend?.queues ?? [],
      queueIndex: 0,
      telemetry: null,
      error: null,
      ...this.emptyList(),
    });
    void this.refreshCounts();
    void this.loadTasks();
  }

  private emptyList(): Partial<InspectorState> {
    this.tasksSeq++;
    this.detailSeq++;
    return { ...NO_TASKS };
  }

  /** Where focus goes when the detail it was on closes. */
  private listFocus(): InspectorPane {
    return this.state.focus === 'detail' ? 'tasks' : this.state.focus;
  }

  private move(step: number): void {
    const clamp = (value: number, length: number): number =>
      Math.max(0, Math.min(length - 1, value));
    const { focus } = this.state;
    if (focus === 'backends') {
      this.selectBackend(clamp(this.state.aliasIndex + step, this.state.aliases.length));
    } else if (focus === 'queues') {
      this.selectQueue(clamp(this.state.queueIndex + step, this.state.queues.length));
    } else if (focus === 'tasks') {
      if (this.state.tasks.length > 0) {
        this.set({ taskIndex: clamp(this.state.taskIndex + step, this.state.tasks.length) });
      }
    } else if (this.state.detail !== null) {
      const lines = detailLines(this.state.detail, this.state.now).length;
      this.set({ detailScroll: clamp(this.state.detailScroll + step, lines) });
    }
  }

  private enter(): void {
    const { focus } = this.state;
    if (focus === 'backends' || focus === 'queues') {
      this.set({ focus: 'tasks' });
      return;
    }
    if (focus !== 'tasks') return;
    const task = this.state.tasks[this.state.taskIndex];
    if (task === undefined) return;
    this.detailSeq++;
    this.set({ detail: task, detailNote: null, detailScroll: 0, focus: 'detail' });
  }

  private closeDetail(): void {
    if (this.state.detail === null) return;
    this.detailSeq++;
    this.set({ detail: null, detailNote: null, detailScroll: 0, focus: 'tasks' });
  }
}
