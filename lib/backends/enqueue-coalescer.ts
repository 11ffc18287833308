import type { TaskRecord } from '../core/task-record.interface';

/**
 * Tasks per store call of an enqueue. A call is one atomic step in the store
 * (a Redis script, a SQLite transaction) during which the store serves
 * nobody else, so a bulk of a million must not be one call: at about 15 µs
 * of Redis time per task, a slice holds Redis some 15 ms, and the one round
 * trip per slice costs next to nothing beside that. Coalesced single
 * enqueues are capped by the same number.
 */
export const ENQUEUE_SLICE = 1000;

/**
 * Per record of a batch, in order: what a lone `enqueue` of it would have
 * returned (the record stored, or a unique key's holder), or the error it
 * would have thrown (TaskAlreadyExistsError, UniqueKeyHeldError, ...).
 */
export type EnqueueOutcome = TaskRecord | Error;

/**
 * Stores a batch of records in one atomic step, each decided as if it came
 * alone after the ones before it; rejects only when the step as a whole
 * failed (the store unreachable), which then fails every record of it.
 */
export type StoreEach = (records: readonly TaskRecord[]) => Promise<readonly EnqueueOutcome[]>;

interface Waiting {
  readonly record: TaskRecord;
  readonly resolve: (stored: TaskRecord) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Gathers the single enqueues a process makes on one backend in one tick
 * and hands them to the store as one batch (one Redis script call, one
 * SQLite transaction), each caller still getting its own record or error.
 *
 * The batch closes at the end of the current tick: a microtask, then a
 * nextTick queued from it, which Node runs only once the microtask queue is
 * empty, so callers woken by the same reply (their `await` continuations
 * all queued by it) join one batch however deep their promise chains. No
 * timer: a lone call waits two queue hops (well under a microsecond), not a
 * turn of the event loop. A batch that reaches `maxBatch` records goes out
 * at once, without waiting for the tick to end, so a store that works
 * beside this process (Redis) starts on it while the callers after it are
 * still being gathered. Batches go out in call order; a record whose id is
 * already in the batch starts the next one, so the second is refused as if
 * it came alone.
 *
 * @internal
 */
export class EnqueueCoalescer {
  private gathering: Waiting[] = [];

  /**
   * @param storeEach the backend's atomic step for a batch.
   * @param maxBatch most records in one batch, which then goes out at once.
   */
  constructor(
    private readonly storeEach: StoreEach,
    private readonly maxBatch = ENQUEUE_SLICE,
  ) {}

  /** Stores `record` with the other enqueues of this tick; its own outcome. */
  enqueue(record: TaskRecord): Promise<TaskRecord> {
    return new Promise<TaskRecord>((resolve, reject) => {
      if (this.gathering.length === 0) queueMicrotask(this.closeAfterMicrotasks);
      this.gathering.push({ record, resolve, reject });
      if (this.gathering.length >= this.maxBatch) this.flush();
    });
  }

  private readonly closeAfterMicrotasks = (): void => {
    process.nextTick(this.flush);
  };

  /**
   * Sends what this tick gathered so far, now: a bulk enqueue calls it
   * before it goes out, so it is stored after the single enqueues made
   * before it, as it would have been without gathering.
   */
  readonly flush = (): void => {
    if (this.gathering.length === 0) return;
    const waiting = this.gathering;
    this.gathering = [];
    // A lone enqueue (one awaited after another) is its own batch: nothing to split.
    if (waiting.length === 1) {
      this.send(waiting);
      return;
    }
    let batch: Waiting[] = [];
    let ids = new Set<string>();
    for (const entry of waiting) {
      if (ids.has(entry.record.id)) {
        this.send(batch);
        batch = [];
        ids = new Set();
      }
      batch.push(entry);
      ids.add(entry.record.id);
    }
    this.send(batch);
  };

  private send(batch: readonly Waiting[]): void {
    const failed = (error: unknown): void => {
      for (const entry of batch) entry.reject(error);
    };
    let stored: Promise<readonly EnqueueOutcome[]>;
    try {
      stored = this.storeEach(batch.map((entry) => entry.record));
    } catch (error) {
      failed(error);
      return;
    }
    stored.then((outcomes) => {
      batch.forEach((entry, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof Error) entry.reject(outcome);
        else entry.resolve(outcome);
      });
    }, failed);
  }
}
