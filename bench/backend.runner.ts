import { hostname } from 'node:os';

import { recordWith } from '../lib/core/record-with';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { assertJsonSafe } from '../lib/core/task-serializer';
import { readyRecord } from '../test/helpers/ready-record';
import {
  fillInBatches,
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';
import { tickingTask } from './progress-figures';
import { ThreadmillConsumer, type RunTask } from './threadmill.consumer';

/** The sample's no-op-like task, so the pool (the sample CLI) can run what the in-process figures enqueue. */
export const TASK_NAME = 'sample.echo';
/** How long an idle acquire blocks before it is re-issued (the pool's default order of magnitude). */
const IDLE_WAIT_MS = 5000;

/** The no-op task: what TaskRunner returns for a task that returns nothing. */
const noop: RunTask = async (record) =>
  recordWith(record, {
    status: TaskResultStatus.SUCCESSFUL,
    finishedAt: new Date(),
    returnValue: null,
  });

/**
 * Threadmill driven through the backend contract, whatever the store: the
 * worker child's consumer pattern (bench/threadmill.consumer.ts: acquire
 * with max = free slots, storing what finished in the same call) in this
 * process, with a no-op in place of `TaskRunner`. Enqueue builds the record
 * the way TaskService does (the JSON guard included) and calls the backend.
 * Subclasses say which backend, and how it opens, resets and closes.
 */
export abstract class BackendRunner implements QueueRunner {
  abstract readonly name: string;

  /**
   * @param queue the one queue every figure uses.
   * @param fillInFlight enqueue batches outstanding at once while filling.
   */
  protected constructor(
    protected readonly queue: string,
    private readonly fillInFlight: number,
  ) {}

  /** The backend the next call goes to (a runner may open a new one on reset). */
  protected abstract get backend(): TaskBackend;

  abstract close(): Promise<void>;

  async fill(n: number, payload?: string): Promise<void> {
    const args = payload === undefined ? [] : [payload];
    await fillInBatches(n, this.fillInFlight, (size) =>
      this.backend.enqueueMany(Array.from({ length: size }, () => this.record(args))),
    );
  }

  async prepareDrain(
    n: number,
    slots: number,
  ): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
    const consumer = this.consumer(slots, n, noop);
    return { run: () => consumer.run(), close: async () => undefined };
  }

  async prepareProgress(
    tasks: number,
    reporting: boolean,
    durationMs: number,
  ): Promise<{ run(): Promise<void> }> {
    await this.fill(tasks);
    const consumer = this.consumer(tasks, tasks, tickingTask(this.backend, reporting, durationMs));
    return { run: () => consumer.run() };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.backend.enqueue(this.record([]));
  }

  async enqueueSequentialKeyed(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const record = this.record([]);
      const unique = { key: `bench-${record.id}`, mode: 'unfinished' } as const;
      await this.backend.enqueue({ ...record, task: { ...record.task, unique } });
    }
  }

  limitConcurrency(concurrency: number): Promise<void> {
    return this.backend.setQueueLimits(this.queue, { concurrency });
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.backend.enqueue(this.record([]));
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.backend.enqueueMany(Array.from({ length: size }, () => this.record([])));
    }
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const abort = new AbortController();
    const consumer = this.consumer(
      slots,
      null,
      async (record) => {
        onStart(record.args[0] as number);
        return noop(record);
      },
      abort.signal,
    );
    const running = consumer.run();
    return {
      stop: async () => {
        abort.abort();
        await running;
      },
    };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.backend.enqueue(this.record([seq]));
  }

  private consumer(
    slots: number,
    limit: number | null,
    runTask: RunTask,
    signal?: AbortSignal,
  ): ThreadmillConsumer {
    return new ThreadmillConsumer(this.backend, {
      queues: [this.queue],
      slots,
      workerId: `${hostname()}:${process.pid}-bench`,
      runTask,
      limit,
      idleWaitMs: IDLE_WAIT_MS,
      signal,
    });
  }

  /** The record TaskService.enqueue builds for a task with default options. */
  protected record(args: unknown[]): TaskRecord {
    assertJsonSafe(args, TASK_NAME, 'args');
    return readyRecord(this.backend.alias, { name: TASK_NAME, queue: this.queue, args });
  }
}
