import type { TaskBackend } from '../lib/core/task-backend.interface';
import { failedAttempt } from '../lib/lifecycle/retry-policy';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { ChangeSignal } from '../lib/utils/change-signal.util';
import { acquireLanes } from '../lib/worker/child/acquire-lanes';

/** Runs one RUNNING record and returns it finished. */
export type RunTask = (record: TaskRecord) => Promise<TaskRecord>;

export interface ConsumerOptions {
  queues: readonly string[];
  slots: number;
  workerId: string;
  runTask: RunTask;
  /** Stop acquiring after this many tasks; null consumes until `signal` aborts. */
  limit: number | null;
  /** How long one idle acquire blocks on Redis before it is re-issued. */
  idleWaitMs: number;
  signal?: AbortSignal;
}

/**
 * The consumer loop of a worker child, reduced to what costs per task: an
 * acquire asks for as many tasks as there are free slots (bounded prefetch;
 * from 8 slots two acquires are out at once, from 32 four, each for its
 * share, all but the first only while the last acquire came back full) and stores what
 * finished since in the same call, and every task that finishes while an
 * acquire or acknowledge is on its way joins the next batch.
 * Same backend calls as lib/worker/child/worker-child.ts, without the held-task
 * journal, the progress reports and the recycling that a benchmark does not need.
 */
export class ThreadmillConsumer {
  private free: number;
  private readonly finished: TaskRecord[] = [];
  private flushing = false;
  private readonly changes = new ChangeSignal();
  private failure: Error | null = null;
  /** Tasks acquired or asked for by a call still out: what counts against the limit. */
  private requested = 0;
  /** Whether the last acquire filled its request: only then do lanes besides the first look. */
  private backlogLikely = true;
  acknowledged = 0;

  constructor(
    private readonly backend: TaskBackend,
    private readonly options: ConsumerOptions,
  ) {
    this.free = options.slots;
  }

  /** Consumes until the limit or the abort, then resolves once everything taken is acknowledged. */
  async run(): Promise<void> {
    // As the worker child: from 8 slots two acquires out at once, from 32 four (acquireLanes).
    const lanes = acquireLanes(this.options.slots);
    await Promise.all(
      Array.from({ length: lanes }, (_, lane) =>
        this.lane(lane, Math.ceil(this.options.slots / lanes)).finally(() => this.changes.notify()),
      ),
    );
    while (this.free < this.options.slots || this.finished.length > 0 || this.flushing) {
      this.throwIfFailed();
      await this.changes.next();
    }
    this.throwIfFailed();
  }

  /** One lane of acquires; only the first blocks while the queue is empty. */
  private async lane(lane: number, share: number): Promise<void> {
    const { queues, workerId, limit, idleWaitMs, signal } = this.options;
    const blocking = lane === 0;
    while (!signal?.aborted && (limit === null || this.requested < limit)) {
      this.throwIfFailed();
      if (this.free === 0 || (lane > 0 && !this.backlogLikely)) {
        await this.changes.next();
        continue;
      }
      // Reserved while the call is out, so lanes never take more than is free or left.
      const max = Math.min(this.free, share, limit === null ? share : limit - this.requested);
      this.free -= max;
      this.requested += max;
      const options = { workerId, max, timeoutMs: blocking ? idleWaitMs : 0, signal };
      // What finished since the last call rides along with this acquire.
      const done = this.finished.splice(0);
      const { acquired: records } = await this.backend.leases.acknowledgeAndAcquire(
        done,
        queues,
        options,
      );
      this.acknowledged += done.length;
      this.free += max - records.length;
      this.requested -= max - records.length;
      this.backlogLikely = records.length === max;
      for (const record of records) this.start(record);
      // The other lane may find work now, or this one (not blocking) waits for a change.
      this.changes.notify();
      // Not once aborted: the abort's one wake-up may have come while this call was out.
      if (records.length === 0 && !blocking && !signal?.aborted) await this.changes.next();
    }
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  private start(record: TaskRecord): void {
    this.options.runTask(record).then(
      (result) => this.finish(result),
      (error: unknown) => this.finish(failedAttempt(record, error)),
    );
  }

  private finish(result: TaskRecord): void {
    this.free++;
    this.finished.push(result);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
    this.changes.notify();
  }

  private async flush(): Promise<void> {
    try {
      while (this.finished.length > 0) {
        const batch = this.finished.splice(0);
        await this.backend.leases.acknowledge(batch);
        this.acknowledged += batch.length;
      }
    } catch (error) {
      // A benchmark must not count what was not stored: run() rethrows it.
      this.failure ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      // No await between the emptiness check above and this reset: nothing can be stranded.
      this.flushing = false;
      this.changes.notify();
    }
  }
}
