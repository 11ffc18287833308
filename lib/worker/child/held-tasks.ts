import type { LoggerService } from '@nestjs/common';

import type { CancelHook } from '../../core/cancel-hook';
import type { TaskRecord } from '../../core/task-record.interface';
import { taskCancelRequested } from '../worker.messages';
import type { HardStopReason } from '../worker-ipc';
import type { RunningTask } from './lease-check';
import { OverrunWatch } from './overrun-watch';
import type { TaskSlots } from './task-slots';

/** A leased task in one of the child's slots: started, or about to be. */
export interface Held extends RunningTask {
  readonly slot: number;
  /** The worker id its acquire recorded (the slot's own is stamped when it starts). */
  readonly batchWorkerId: string;
  /** Requested by a cancel request: the attempt's signal aborts with it. */
  readonly cancel: CancelHook;
  /** Its method was called; until then a cancel ends it without running it. */
  started: boolean;
}

export interface HeldTasksDeps {
  readonly logger: LoggerService;
  /** A task's declared `cancel.hardStopAfterMs`, by its name (none: cooperative only). */
  readonly hardStopAfterMs?: (taskName: string) => number | undefined;
  /** Asks the pool to stop this child for `id`, whose code ignores its signal. */
  readonly hardStop: (id: string, reason: HardStopReason) => void;
}

/**
 * The tasks in a child's slots, by id. Each leaves through `remove` (it
 * finished, was released or abandoned, or was cancelled before it started),
 * which frees its slot and stops watching its limits, so whatever ends a
 * task lets go of it the same way. A started task's time limit and hard
 * stop are watched here (OverrunWatch).
 *
 * @internal
 */
export class HeldTasks {
  private readonly byId = new Map<string, Held>();
  private readonly overruns: OverrunWatch;

  constructor(
    private readonly slots: TaskSlots,
    private readonly deps: HeldTasksDeps,
  ) {
    this.overruns = new OverrunWatch((id, task) => this.byId.get(id) === task, deps.hardStop);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The held tasks by id (for the lease check). */
  get tasks(): ReadonlyMap<string, Held> {
    return this.byId;
  }

  add(task: Held): void {
    this.byId.set(task.record.id, task);
  }

  /** Whether `task` is still held (not released or abandoned meanwhile). */
  holds(task: Held): boolean {
    return this.byId.get(task.record.id) === task;
  }

  /** `task` starts as `record` (stamped with its slot): watched against its time limit. */
  started(task: Held, record: TaskRecord): void {
    task.started = true;
    this.overruns.started(record.id, task, record.task.timeoutMs);
  }

  /** Lets go of `id`, its slot free again; the task, or undefined when it was not held. */
  remove(id: string): Held | undefined {
    this.overruns.ended(id);
    const task = this.byId.get(id);
    if (!task) return undefined;
    this.byId.delete(id);
    this.slots.vacate(task.slot);
    return task;
  }

  /** Lets go of every held task (an urgent stop), their slots free again. */
  removeAll(): Held[] {
    const all = [...this.byId.values()];
    for (const task of all) this.remove(task.record.id);
    return all;
  }

  /**
   * A cancel request for `id` under lease `lease`: aborts its signal when it
   * runs (true), and watches its hard stop; null when it is held but not
   * started, false when that lease is not held here.
   */
  stopRunning(id: string, lease: string): boolean | null {
    const task = this.byId.get(id);
    if (!task || !isLease(task.record, lease)) return false;
    if (!task.started) return null;
    if (task.cancel.requested) return true;
    this.deps.logger.log(taskCancelRequested(task.record));
    task.cancel.request();
    this.overruns.cancelled(id, task, this.deps.hardStopAfterMs?.(task.record.task.name));
    return true;
  }
}

/** Whether `record` is under lease `lease` (a request from before leases were named names none). */
export function isLease(record: TaskRecord, lease: string): boolean {
  return lease === '' || record.workerIds.at(-1) === lease;
}
