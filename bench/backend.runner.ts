import { hostname } from 'node:os';

import type { BackendConfig } from '../lib/core/backend-config.interface';
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
import { TaskServiceProducer, type ThreadmillApi } from './task-service.producer';

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
 * Threadmill on one store, whatever the store. The enqueue figures go
 * through the public `TaskService` of a Nest application context booted
 * on the same store (TaskServiceProducer), as an app enqueues; the
 * backend-level in-flight figure beside them calls the backend with a record
 * built as TaskService builds it, to show what TaskService adds. Consuming
 * is the worker child's consumer pattern (bench/threadmill.consumer.ts:
 * acquire with max = free slots, storing what finished in the same call) in
 * this process, with a no-op in place of `TaskRunner`. Subclasses say which
 * backend, and how it opens, resets and closes.
 */
export abstract class BackendRunner implements QueueRunner {
  abstract readonly name: string;

  /** The context TaskService's figures go through, once prepareEnqueue booted it. */
  private producer: TaskServiceProducer | null = null;

  /**
   * @param queue the one queue every figure uses.
   * @param fillInFlight enqueue batches outstanding at once while filling.
   * @param api the build whose TaskService the enqueue figures go through.
   */
  protected constructor(
    protected readonly queue: string,
    private readonly fillInFlight: number,
    private readonly api: ThreadmillApi,
  ) {}

  /** The backend the next call goes to (a runner may open a new one on reset). */
  protected abstract get backend(): TaskBackend;

  /** How ThreadmillModule configures a backend on the store the next call goes to. */
  protected abstract backendConfig(): BackendConfig;

  abstract close(): Promise<void>;

  /** Boots the TaskService context on the current store unless it is up (untimed). */
  async prepareEnqueue(): Promise<void> {
    this.producer ??= await TaskServiceProducer.boot(this.api, {
      alias: this.backend.alias,
      backend: this.backendConfig(),
      queue: this.queue,
      taskName: TASK_NAME,
    });
  }

  /** Closes the TaskService context, if one is up (before its store goes, and at close). */
  protected async closeProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    await producer?.close();
  }

  // Fills, drains, pickups and the other set-ups enqueue at backend level, in
  // bulk: they measure consuming, and a fast fill keeps the run short.
  async fill(n: number, payload?: string): Promise<void> {
    const args = payload === undefined ? [] : [payload];
    await fillInBatches(n, this.fillInFlight, (size) =>
      this.backend.tasks.enqueueMany(Array.from({ length: size }, () => this.record(args))),
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
    const producer = this.taskService();
    for (let i = 0; i < n; i++) await producer.enqueue([]);
  }

  async enqueueSequentialKeyed(n: number): Promise<void> {
    const producer = this.taskService();
    // A key of each call's own, so each makes a task; the store is emptied before each run.
    for (let i = 0; i < n; i++) await producer.enqueue([], `bench-${i}`);
  }

  limitConcurrency(concurrency: number): Promise<void> {
    return this.backend.control.setQueueLimits(this.queue, { concurrency });
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    const producer = this.taskService();
    await inParallel(n, inFlight, () => producer.enqueue([]));
  }

  async enqueueConcurrentBackendLevel(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.backend.tasks.enqueue(this.record([]));
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    const producer = this.taskService();
    for (let sent = 0; sent < n; sent += batch) {
      await producer.enqueueMany(Array.from({ length: Math.min(batch, n - sent) }, () => []));
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

  /** At backend level, as the fill: the pickup figure times the consumer's side. */
  async enqueueOne(seq: number): Promise<void> {
    await this.backend.tasks.enqueue(this.record([seq]));
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

  private taskService(): TaskServiceProducer {
    if (this.producer === null) throw new Error(`${this.name}: enqueue before prepareEnqueue`);
    return this.producer;
  }

  /** The record TaskService.enqueue builds for a task with default options. */
  protected record(args: unknown[]): TaskRecord {
    assertJsonSafe(args, TASK_NAME, 'args');
    return readyRecord(this.backend.alias, { name: TASK_NAME, queue: this.queue, args });
  }
}
