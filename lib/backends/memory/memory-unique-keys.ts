import type { TaskRecord } from '../../core/task-record.interface';
import type { EnqueueWrite, StoredKeyHold } from '../../core/unique-enqueue-plan';
import type { HolderState, UniqueMode } from '../../core/unique-key';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';
import type { StoreRules } from '../../core/ports/store-rules.port';

/** Who holds a unique key, and until when a window on it lasts. */
interface MemoryKeyHold {
  readonly holderId: string;
  readonly mode: UniqueMode;
  /** ms; null when no window. */
  readonly windowEnd: number | null;
}

/**
 * The unique keys of one memory alias: key -> holder. An enqueue with keys
 * reads the holds and writes its tasks in one synchronous step, so no other
 * call sees a key checked but not yet taken. A hold whose task is final or
 * gone is free at once (the check reads the holder's state); `forgetFree`
 * drops such holds a bounded number at a time, so the map stays as large as
 * the keys that still hold.
 *
 * @internal
 */
export class MemoryUniqueKeys {
  private readonly holds = new Map<string, MemoryKeyHold>();

  constructor(
    private readonly alias: string,
    private readonly store: MemoryStore,
    private readonly rules: StoreRules,
  ) {}

  /** Stores `records` (ids already checked) as their keys decide; per record, what was stored or returned. */
  enqueue(records: readonly TaskRecord[], now: number): TaskRecord[] {
    const plan = this.rules.planUnique(this.alias, records, (key) => this.holdOf(key, now), now);
    for (const write of plan.writes) this.apply(write, now);
    return plan.returned.map(copyRecord);
  }

  /**
   * Immediate mode: decides one keyed record and, when its key makes a task,
   * takes the key and runs it (`run` stores it before its first await, so
   * the decision, the take and the store are still one synchronous step);
   * otherwise the holder comes back, unrun.
   */
  async enqueueImmediate(
    record: TaskRecord,
    run: (record: TaskRecord) => Promise<TaskRecord>,
  ): Promise<TaskRecord> {
    const now = Date.now();
    const plan = this.rules.planUnique(this.alias, [record], (key) => this.holdOf(key, now), now);
    const [write] = plan.writes;
    if (write?.kind !== 'add') return copyRecord(plan.returned[0]);
    if (write.taken) this.take(write.record.id, write.taken);
    return run(write.record);
  }

  /**
   * Drops up to `max` holds that no longer hold (holder final or gone, no
   * window left) among the `max` looked at; those still held are looked at
   * again after the others. How many went.
   */
  forgetFree(max: number, now: number): number {
    const looked: [string, MemoryKeyHold][] = [];
    for (const entry of this.holds) {
      if (looked.length >= max) break;
      looked.push(entry);
    }
    let forgotten = 0;
    for (const [key, hold] of looked) {
      this.holds.delete(key);
      const state = this.stateOf(hold.holderId, now);
      const windowHeld = hold.windowEnd !== null && hold.windowEnd > now;
      // Re-set at the end of the map's order, so the next pass looks at others first.
      if (windowHeld || (state !== 'final' && state !== 'gone')) this.holds.set(key, hold);
      else forgotten++;
    }
    return forgotten;
  }

  /** A task retried by hand takes its key back, where keyTakenBack says so. */
  takeBack(retried: TaskRecord, now: number): void {
    const taken = this.rules.keyTakenBack(retried, (key) => this.holdOf(key, now), now);
    if (taken) this.take(retried.id, taken);
  }

  /** Drops the hold on `key` if `holderId` holds it (its task was removed). */
  release(key: string, holderId: string): void {
    if (this.holds.get(key)?.holderId === holderId) this.holds.delete(key);
  }

  private holdOf(key: string, now: number): StoredKeyHold | undefined {
    const hold = this.holds.get(key);
    if (!hold) return undefined;
    const holder = this.store.find(hold.holderId, now) ?? null;
    return {
      holderId: hold.holderId,
      windowEnd: hold.windowEnd,
      holder,
      state: this.stateOf(hold.holderId, now),
    };
  }

  private stateOf(id: string, now: number): HolderState {
    const task = this.store.tasks.get(id);
    if (task) {
      if (this.store.leases.has(id)) return 'running';
      return task.workerIds.length === 0 ? 'fresh' : 'started';
    }
    return this.store.liveResult(id, now) ? 'final' : 'gone';
  }

  private apply(write: EnqueueWrite, now: number): void {
    if (write.kind === 'replace') {
      this.store.replaceWaiting(copyRecord(write.record), now);
      return;
    }
    this.store.add(copyRecord(write.record), now);
    if (write.taken) this.take(write.record.id, write.taken);
  }

  private take(
    holderId: string,
    taken: { key: string; mode: UniqueMode; windowEnd: number | null },
  ): void {
    this.holds.set(taken.key, { holderId, mode: taken.mode, windowEnd: taken.windowEnd });
  }
}
