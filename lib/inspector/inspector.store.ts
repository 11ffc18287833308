import type { QueueSegment } from '../core/queue-segment';
import {
  type InspectorAction,
  type InspectorCommand,
  type InspectorKey,
  keyCommands,
} from './inspector-keys';
import { InspectorReads } from './inspector-reads';
import {
  type InspectorPane,
  type InspectorState,
  type InspectorStoreOptions,
  NO_TASKS,
} from './inspector-state';
import { detailLines, INSPECTOR_TABS } from './inspector.view';

export type { InspectorAction, InspectorKey } from './inspector-keys';
export type {
  InspectorBackend,
  InspectorPane,
  InspectorState,
  InspectorStoreOptions,
} from './inspector-state';

/**
 * The inspector's state and behaviour, without a terminal: what is selected,
 * what was read from the backend, and what each key does. The Ink layer
 * (inspector.app.ts) renders `getState()` and forwards key presses, so every
 * rule here is tested without Ink.
 *
 * It only reads (through InspectorReads): counts come from `telemetry` and
 * rows from `peek` with a limit, so a queue of a million tasks costs the same
 * as a queue of ten.
 *
 * @internal
 */

const READY_TAB = INSPECTOR_TABS.findIndex((t) => t.segment === 'ready');

export class InspectorStore {
  private state: InspectorState;
  private readonly listeners = new Set<() => void>();
  private readonly refreshIntervalMs: number;
  private readonly reads: InspectorReads;
  private timer: NodeJS.Timeout | undefined;
  /** While the first reads are out, state changes are kept from the screen. */
  private holdNotifications = false;

  constructor(private readonly options: InspectorStoreOptions) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 2000;
    const clock = options.clock ?? (() => new Date());
    this.reads = new InspectorReads(
      { get: () => this.state, set: (patch) => this.set(patch) },
      {
        backends: options.backends,
        refreshIntervalMs: this.refreshIntervalMs,
        pageSize: options.pageSize ?? 100,
        readTimeoutMs: options.readTimeoutMs ?? 5000,
        clock,
      },
    );
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
      paused: [],
      ...NO_TASKS,
      view: 'tasks',
      schedules: null,
      scheduleIndex: 0,
      error: null,
      now: clock(),
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
    this.reads.start();
    // The first counts and rows reach the screen together: one frame drawn
    // instead of two, which is most of the first screen's cost on a busy CPU.
    this.holdNotifications = true;
    void Promise.allSettled([this.reads.refreshCounts(), this.reads.loadTasks()]).then(() => {
      this.holdNotifications = false;
      this.notify();
    });
    this.timer = setInterval(() => {
      void this.reads.refreshCounts();
      if (this.state.view === 'schedules') void this.reads.loadSchedules();
    }, this.refreshIntervalMs);
  }

  stop(): void {
    this.reads.stop();
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

  /** `r`: counts, the task list and the open detail, read again now. */
  refresh(): void {
    void this.reads.refreshCounts();
    void this.reads.loadTasks();
    this.reads.reloadDetail();
    if (this.state.view === 'schedules') void this.reads.loadSchedules();
  }

  private apply(key: InspectorKey): InspectorAction {
    for (const command of keyCommands(key)) {
      if (command.kind === 'quit') return 'quit';
      this.run(command);
    }
    return 'none';
  }

  private run(command: Exclude<InspectorCommand, { kind: 'quit' }>): void {
    const tabs = INSPECTOR_TABS.length;
    switch (command.kind) {
      case 'cycleFocus':
        this.cycleFocus(command.step);
        break;
      case 'refresh':
        this.refresh();
        break;
      case 'selectTab':
        this.selectTab(command.tabIndex);
        break;
      case 'stepTab':
        this.selectTab((this.state.tabIndex + tabs + command.step) % tabs);
        break;
      case 'move':
        this.move(command.step);
        break;
      case 'enter':
        this.enter();
        break;
      case 'closeDetail':
        this.closeDetail();
        break;
      case 'toggleSchedules':
        this.toggleSchedules();
        break;
    }
  }

  private set(patch: Partial<InspectorState>): void {
    this.state = { ...this.state, ...patch };
    if (!this.holdNotifications) this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private cycleFocus(step: 1 | -1): void {
    const panes = this.panes();
    const at = Math.max(0, panes.indexOf(this.state.focus));
    this.set({ focus: panes[(at + step + panes.length) % panes.length] });
  }

  /** `s`: the Schedules view in place of the task list, read now and on every refresh; `s` again goes back. */
  private toggleSchedules(): void {
    this.reads.dropSchedulesRead();
    if (this.state.view === 'schedules') {
      this.set({ view: 'tasks', schedules: null, scheduleIndex: 0 });
      return;
    }
    this.reads.dropDetailRead();
    this.set({
      view: 'schedules',
      schedules: null,
      scheduleIndex: 0,
      detail: null,
      detailNote: null,
      detailScroll: 0,
      focus: this.listFocus(),
    });
    void this.reads.loadSchedules();
  }

  private selectTab(tabIndex: number): void {
    if (this.state.view === 'schedules') this.toggleSchedules();
    if (tabIndex === this.state.tabIndex) return;
    this.set({ tabIndex, ...this.emptyList(), focus: this.listFocus() });
    void this.reads.loadTasks();
  }

  private selectQueue(queueIndex: number): void {
    if (queueIndex === this.state.queueIndex) return;
    this.set({ queueIndex, ...this.emptyList() });
    void this.reads.loadTasks();
  }

  private selectBackend(aliasIndex: number): void {
    if (aliasIndex === this.state.aliasIndex) return;
    const backend = this.options.backends[aliasIndex];
    this.reads.dropCountsRead();
    this.set({
      aliasIndex,
      queues: backend?.queues ?? [],
      queueIndex: 0,
      telemetry: null,
      paused: [],
      error: null,
      ...this.emptyList(),
      schedules: null,
      scheduleIndex: 0,
    });
    void this.reads.refreshCounts();
    void this.reads.loadTasks();
    this.reads.dropSchedulesRead();
    if (this.state.view === 'schedules') void this.reads.loadSchedules();
  }

  private emptyList(): Partial<InspectorState> {
    this.reads.dropTaskReads();
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
    } else if (focus === 'tasks' && this.state.view === 'schedules') {
      const rows = this.state.schedules?.length ?? 0;
      if (rows > 0) this.set({ scheduleIndex: clamp(this.state.scheduleIndex + step, rows) });
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
    if (focus !== 'tasks' || this.state.view === 'schedules') return;
    const task = this.state.tasks[this.state.taskIndex];
    if (task === undefined) return;
    this.reads.dropDetailRead();
    this.set({ detail: task, detailNote: null, detailScroll: 0, focus: 'detail' });
  }

  private closeDetail(): void {
    if (this.state.detail === null) return;
    this.reads.dropDetailRead();
    this.set({ detail: null, detailNote: null, detailScroll: 0, focus: 'tasks' });
  }
}
