import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import type { ControlStore } from '../../core/ports/control-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { prefetchCheckFailed, type ReleaseOrUnleaseReason } from '../worker.messages';
import type { ChangeSignal } from '../../utils/change-signal.util';
import type { RunningTask } from './lease-check';
import type { ReleaseAndUnlease } from './release-and-unlease';
import type { LeaseLedger } from './lease-ledger';
import type { TaskSlots } from './task-slots';

/**
 * The share of its lease a prefetched task may wait locally: its lease
 * started when it was leased, and whatever it waits is taken from its run.
 */
const WAIT_SHARE_OF_LEASE = 10;
/** Period of the check for paused queues and tasks that waited too long ("within about a second"). */
const CHECK_EVERY_MS = 500;

/** A task leased ahead of a free slot (prefetch), waiting in this child. */
export interface WaitingTask extends RunningTask {
  /** The worker id its acquire recorded (the slot that starts it stamps its own). */
  readonly batchWorkerId: string;
}

/** A waiting task taken off the shelf to start in `slot`. */
export interface StartingTask extends WaitingTask {
  readonly slot: number;
}

export interface PrefetchShelfDeps {
  readonly backend: Pick<TaskBackend, 'alias' | 'leaseTtlMs'> & {
    readonly control: Pick<ControlStore, 'pausedQueues'>;
  };
  readonly logger: LoggerService;
  /** Period of the check for paused queues and tasks that waited too long; CHECK_EVERY_MS by default. */
  readonly everyMs?: number;
  /** Whose prefetch places the waiting tasks take, and whose free slots they start in. */
  readonly slots: TaskSlots;
  readonly ledger: LeaseLedger;
  readonly releaseAndUnlease: ReleaseAndUnlease;
  /** Notified when places free up (a lane may lease again). */
  readonly changes: ChangeSignal;
  readonly now?: () => number;
}

/**
 * The tasks a child leased beyond its free slots (`--prefetch`), oldest
 * first, until a slot frees. They are leased (RUNNING in the store, so they
 * count toward queue limits) but not started, so whatever ends them early
 * gives them back as if never leased. While any waits, one read of the
 * paused queues per period sends back those of a paused queue: a call only
 * while something waits, against the acquire per task a busy child makes.
 * The same check sends back a task that waited a tenth of its lease, so its
 * lease never runs out here; and one whose declared timeout no longer fits
 * in what is left of its lease is not started but given back (leased again
 * later, with a whole lease).
 *
 * @internal
 */
export class PrefetchShelf {
  private readonly waiting = new Map<string, WaitingTask>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private readonly maxWaitMs: number;

  constructor(private readonly deps: PrefetchShelfDeps) {
    this.maxWaitMs = Math.floor(deps.backend.leaseTtlMs / WAIT_SHARE_OF_LEASE);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** The waiting tasks by id (for the lease check). */
  get tasks(): ReadonlyMap<string, WaitingTask> {
    return this.waiting;
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.deps.everyMs ?? CHECK_EVERY_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Places a leased batch: in the `slots` reserved for it, then in any slot
   * free by now (none after a stop), the rest here, in the places they were
   * leased for. Returns the tasks to start, with their slots (the caller
   * journals and starts them).
   */
  place(
    records: readonly TaskRecord[],
    batchWorkerId: string,
    slots: readonly number[],
    stopped: boolean,
  ): StartingTask[] {
    const since = this.now();
    const starting: StartingTask[] = [];
    const waiting: TaskRecord[] = [];
    for (const record of records) {
      let slot: number | undefined = slots[starting.length];
      if (slot === undefined && !stopped) slot = this.deps.slots.claim();
      if (slot === undefined) waiting.push(record);
      else starting.push({ record, batchWorkerId, since, slot });
    }
    const places = records.length - Math.min(records.length, slots.length);
    this.deps.slots.vacatePlaces(places - waiting.length);
    this.put(waiting, batchWorkerId, since, stopped);
    return starting;
  }

  /**
   * Leased for prefetch places: journaled as held and not started, then
   * waiting. After a stop (`stopped`) they go back at once instead.
   */
  put(
    records: readonly TaskRecord[],
    batchWorkerId: string,
    since: number,
    stopped: boolean,
  ): void {
    if (records.length === 0) return;
    if (stopped) {
      this.deps.slots.vacatePlaces(records.length);
      this.deps.releaseAndUnlease.unlease(records, 'stopping before they started');
      return;
    }
    this.deps.ledger.hold(
      [],
      records.map((r) => r.id),
    );
    for (const record of records) this.waiting.set(record.id, { record, batchWorkerId, since });
  }

  /**
   * The oldest waiting tasks, one per free slot, taken off the shelf with
   * their slots and journaled as started (the caller starts them at once).
   * One whose declared timeout no longer fits in what is left of its lease
   * goes back instead.
   */
  startable(): StartingTask[] {
    const { slots, ledger } = this.deps;
    const starting: StartingTask[] = [];
    const late: WaitingTask[] = [];
    for (const task of this.waiting.values()) {
      if (slots.freeCount === starting.length) break;
      this.waiting.delete(task.record.id);
      if (this.fitsLease(task)) starting.push({ ...task, slot: 0 });
      else late.push(task);
    }
    this.unleaseTasks(late, 'their timeoutMs no longer fits in their lease');
    if (starting.length === 0) return starting;
    slots.vacatePlaces(starting.length);
    ledger.started(starting.map((task) => task.record.id));
    return starting.map((task) => ({ ...task, slot: slots.claim() as number }));
  }

  /**
   * Takes `id` off the shelf, its place free again (cancelled, or its lease
   * is gone); undefined when it does not wait here.
   */
  take(id: string): WaitingTask | undefined {
    const task = this.waiting.get(id);
    if (!task) return undefined;
    this.waiting.delete(id);
    this.deps.slots.vacatePlaces(1);
    this.deps.changes.notify();
    return task;
  }

  /** Every waiting task back as if never leased (a stop). */
  unleaseAll(): void {
    this.unleaseWhere(() => true, 'stopping before they started');
  }

  /** Sends back what waited too long and what belongs to a paused queue. */
  async check(): Promise<void> {
    if (this.checking || this.waiting.size === 0) return;
    this.checking = true;
    try {
      const cutoff = this.now() - this.maxWaitMs;
      this.unleaseWhere((task) => task.since <= cutoff, 'waited longer than the prefetch wait');
      const paused = new Set(await this.deps.backend.control.pausedQueues());
      if (paused.size > 0) {
        this.unleaseWhere((task) => paused.has(task.record.task.queue), 'their queue is paused');
      }
    } catch (error) {
      // A missed read only delays the unlease to the next period (or the task's start).
      this.deps.logger.warn(prefetchCheckFailed(this.deps.backend.alias, error));
    } finally {
      this.checking = false;
    }
  }

  /** Whether `task`'s declared timeout still fits in what is left of its lease, were it to start now. */
  private fitsLease(task: WaitingTask): boolean {
    const waitedMs = this.now() - task.since;
    return waitedMs + (task.record.task.timeoutMs ?? 0) < this.deps.backend.leaseTtlMs;
  }

  private unleaseWhere(
    matches: (task: WaitingTask) => boolean,
    reason: ReleaseOrUnleaseReason,
  ): void {
    const back = [...this.waiting.values()].filter(matches);
    for (const task of back) this.waiting.delete(task.record.id);
    this.unleaseTasks(back, reason);
  }

  /** Off the shelf already: back as if never leased (then out of the ledger), their places free. */
  private unleaseTasks(tasks: readonly WaitingTask[], reason: ReleaseOrUnleaseReason): void {
    if (tasks.length === 0) return;
    this.deps.slots.vacatePlaces(tasks.length);
    this.deps.releaseAndUnlease.unlease(
      tasks.map((task) => task.record),
      reason,
    );
    this.deps.changes.notify();
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
