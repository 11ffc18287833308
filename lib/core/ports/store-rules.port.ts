import type { LimitRoom, QueueLimits } from '../queue-limits';
import type { TaskRecord } from '../task-record.interface';
import type { EnqueuePlan, KeyTaken, StoredKeyHold } from '../unique-enqueue-plan';

/**
 * The lifecycle's rules a backend applies inside its own atomic steps,
 * where no caller can hand a decision in: what a lease, a release and an
 * unlease make of a task, how an enqueue with a unique key is decided, and
 * how much room a limited queue has. Written once in lib/lifecycle
 * (`storeRules`) and given to every backend when it is built; a backend
 * calls them and stores what they return, and never sets a status itself.
 * Where a rule runs in a Lua script for atomicity, the script's header names
 * the rule it mirrors and the contract suite pins the two together.
 */
export interface StoreRules {
  /** An attempt that `thrown` ended, FAILED (whether it runs again is the retry rule's). */
  failed(record: TaskRecord, thrown: unknown): TaskRecord;
  /** A READY task taken by `workerId` at `at`: RUNNING, one attempt more. */
  leased(record: TaskRecord, workerId: string, at: Date): TaskRecord;
  /** A run interrupted by its pool's urgent stop, back READY unfinished (release). */
  released(record: TaskRecord): TaskRecord;
  /** A lease whose task never started, given back as if never taken (unlease). */
  unleased(record: TaskRecord): TaskRecord;
  /** What an enqueue of `records` stores and returns, given each key's hold as stored. */
  planUnique(
    alias: string,
    records: readonly TaskRecord[],
    holdOf: (key: string) => StoredKeyHold | undefined,
    now: number,
  ): EnqueuePlan;
  /** The key a task retried by hand takes back, given its key's hold now; null for none. */
  keyTakenBack(
    retried: TaskRecord,
    holdOf: (key: string) => StoredKeyHold | undefined,
    now: number,
  ): KeyTaken | null;
  /** How many tasks a limited queue may start now, beside `running` and recent `starts`. */
  limitRoom(
    limits: QueueLimits,
    running: number,
    starts: readonly number[],
    now: number,
  ): LimitRoom;
}
