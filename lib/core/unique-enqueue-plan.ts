import type { TaskRecord } from './task-record.interface';
import type { HolderState, UniqueMode } from './unique-key';

/** A key's hold as a store reads it in the step that enqueues. */
export interface StoredKeyHold {
  readonly holderId: string;
  /** When a window on the key ends (ms, the store's clock); null for none. */
  readonly windowEnd: number | null;
  /** The holder's stored record (waiting, running or a live result); null when gone. */
  readonly holder: TaskRecord | null;
  readonly state: HolderState;
}

/** A key taken by a task this enqueue makes. */
export interface KeyTaken {
  readonly key: string;
  readonly mode: UniqueMode;
  readonly windowEnd: number | null;
}

/** One write of a planned enqueue, in order. */
export type EnqueueWrite =
  /** Store a new task; with `taken`, it takes that key. */
  | { readonly kind: 'add'; record: TaskRecord; readonly taken?: KeyTaken }
  /** Replace a waiting, never-started task (same id, same queue) with `record`: debounce. */
  | { readonly kind: 'replace'; record: TaskRecord };

/** What a store writes for an enqueue, and what it returns per record sent. */
export interface EnqueuePlan {
  readonly writes: EnqueueWrite[];
  /** Per record sent, in order: the record stored, or the holder returned (its own id). */
  readonly returned: TaskRecord[];
}
