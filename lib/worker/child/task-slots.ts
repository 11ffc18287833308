import { recordWith } from '../../core/record-with';
import type { TaskRecord } from '../../core/task-record.interface';
import { InvalidCommandOptionError } from '../../core/errors/invalid-command-option.error';
import { prefetchNotWhole } from '../worker.messages';
import type { WorkerOptions } from '../worker-options.interface';

/**
 * A child's task slots (numbered from 1, the `-slot` of its worker ids), its
 * prefetch places (tasks leased beyond the free slots, waiting for one) and
 * its recycling budget. An acquire reserves slots and places, and budget,
 * while its call is out, so the lanes never lease more than there is room
 * for, and gives back what the call did not fill.
 *
 * @internal
 */
export class TaskSlots {
  private readonly free: number[] = [];

  constructor(
    threads: number,
    /** Tasks this child may still lease before it recycles itself. */
    private budget: number,
    /** Prefetch places not taken (`--prefetch`). */
    private places = 0,
  ) {
    for (let slot = 1; slot <= threads; slot++) this.free.push(slot);
  }

  /** A child's slots, places and budget (`--max-tasks` plus a jitter drawn with `random`). */
  static of(options: WorkerOptions, random: () => number): TaskSlots {
    const budget =
      options.maxTasks === null
        ? Number.POSITIVE_INFINITY
        : options.maxTasks + Math.floor(random() * (options.maxTasksJitter + 1));
    return new TaskSlots(options.threads, budget, prefetchPlaces(options));
  }

  get freeCount(): number {
    return this.free.length;
  }

  /** Prefetch places neither reserved nor holding a task. */
  get placesFree(): number {
    return this.places;
  }

  get remainingBudget(): number {
    return this.budget;
  }

  /** Up to `max` free slots, within the budget. */
  reserve(max: number): number[] {
    const slots = this.free.splice(0, Math.min(max, this.budget));
    this.budget -= slots.length;
    return slots;
  }

  /** Every free prefetch place, within the budget: how many. */
  reservePlaces(): number {
    const places = Math.min(this.places, this.budget);
    this.places -= places;
    this.budget -= places;
    return places;
  }

  /**
   * Gives back what a call that leased `leased` tasks for its `slots` and
   * `places` (slots filled first) did not fill; true when any.
   */
  unreserve(slots: readonly number[], leased: number, places = 0): boolean {
    const used = Math.min(leased, slots.length);
    const placesLeft = places - Math.max(0, leased - slots.length);
    if (used === slots.length && placesLeft === 0) return false;
    this.budget += slots.length - used + placesLeft;
    this.places += placesLeft;
    this.free.unshift(...slots.slice(used));
    return true;
  }

  /** A free slot, taken for a waiting task (or a batch's task that found one free); undefined when none. */
  claim(): number | undefined {
    return this.free.shift();
  }

  /** A slot whose task ended (or whose lease was given back) takes work again. */
  vacate(...slots: number[]): void {
    this.free.push(...slots);
  }

  /** Prefetch places whose task left (started in a slot, given back, cancelled): free again. */
  vacatePlaces(count: number): void {
    this.places += count;
  }
}

/** `--prefetch` (0 when absent), checked: the pool passes it to every child as given. */
function prefetchPlaces(options: WorkerOptions): number {
  const prefetch = options.prefetch ?? 0;
  if (!Number.isSafeInteger(prefetch) || prefetch < 0) {
    throw new InvalidCommandOptionError(prefetchNotWhole(prefetch));
  }
  return prefetch;
}

/**
 * One acquire call records one worker id for its whole batch; each task is
 * re-stamped with the slot that actually runs it (`slotWorkerId`), so the
 * stored result names `host:pid-slot` exactly.
 */
export function stampSlot(
  record: TaskRecord,
  batchWorkerId: string,
  slotWorkerId: string,
): TaskRecord {
  const last = record.workerIds.length - 1;
  if (slotWorkerId === batchWorkerId || record.workerIds[last] !== batchWorkerId) return record;
  return recordWith(record, { workerIds: [...record.workerIds.slice(0, last), slotWorkerId] });
}
