import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import type { LoggerService } from '@nestjs/common';

import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { assertJsonSafe } from '../lib/core/task-serializer';
import { WorkerChild, type RunTask } from '../lib/worker/worker-child';
import type { WorkerOptions } from '../lib/worker/worker-options.interface';
import {
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';

const ALIAS = 'bench';
const TASK_NAME = 'bench.noop';
const FILL_BATCH = 1000;
const FILL_IN_FLIGHT = 4;
/** How long an idle acquire blocks before it is re-issued (the pool's default order of magnitude). */
const IDLE_WAIT_MS = 5000;

/** Warnings and errors only: a benchmark must not pay for per-task log lines. */
const quietLogger: LoggerService = {
  log: () => undefined,
  warn: (message: unknown) => console.error('[threadmill warn]', message),
  error: (message: unknown) => console.error('[threadmill error]', message),
};

/** The no-op task: what TaskRunner returns for a task that returns nothing. */
const noop: RunTask = async (record) => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue: null,
});

/**
 * Threadmill driven through the public backend contract with the pool's own
 * consumer loop: `WorkerChild` (acquire with max = free slots, run, batch
 * acknowledge) in this process, with a no-op in place of `TaskRunner` and an
 * IPC channel that goes nowhere. Enqueue builds the record the way
 * TaskService does (the JSON guard included) and calls the backend.
 */
export class ThreadmillRunner implements QueueRunner {
  readonly name = 'Threadmill';

  private constructor(
    private readonly backend: TaskBackend,
    private readonly queue: string,
  ) {}

  static async create(url: string, queue = 'default'): Promise<ThreadmillRunner> {
    const backend = new RedisBackend(ALIAS, { backend: RedisBackend, url, queues: [queue] });
    await backend.ping();
    return new ThreadmillRunner(backend, queue);
  }

  async fill(n: number, payload?: string): Promise<void> {
    const args = payload === undefined ? [] : [payload];
    const batches = Math.ceil(n / FILL_BATCH);
    await inParallel(batches, FILL_IN_FLIGHT, async (b) => {
      const size = Math.min(FILL_BATCH, n - b * FILL_BATCH);
      await this.backend.enqueueMany(Array.from({ length: size }, () => this.record(args)));
    });
  }

  async prepareDrain(
    n: number,
    slots: number,
  ): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
    const child = this.child(slots, { maxTasks: n, exitEmpty: true }, noop);
    return {
      run: async () => {
        await child.run();
      },
      close: async () => undefined,
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.backend.enqueue(this.record([]));
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
    const child = this.child(slots, { maxTasks: null, exitEmpty: false }, async (record) => {
      onStart(record.args[0] as number);
      return noop(record);
    });
    const running = child.run();
    return {
      stop: async () => {
        child.stop(false);
        await running;
      },
    };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.backend.enqueue(this.record([seq]));
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  private child(
    threads: number,
    options: Pick<WorkerOptions, 'maxTasks' | 'exitEmpty'>,
    runTask: RunTask,
  ): WorkerChild {
    return new WorkerChild(
      {
        backend: ALIAS,
        queues: [this.queue],
        processes: 1,
        threads,
        maxTasksJitter: 0,
        ...options,
      },
      {
        backend: this.backend,
        runTask,
        channel: { send: async () => undefined },
        logger: quietLogger,
        logTasks: false,
        identity: `${hostname()}:${process.pid}`,
        idleWaitMs: IDLE_WAIT_MS,
        retryDelayMs: 100,
        random: () => 0,
      },
    );
  }

  /** The record TaskService.enqueue builds for a task with default options. */
  private record(args: unknown[]): TaskRecord {
    assertJsonSafe(args, TASK_NAME, 'args');
    return {
      id: randomUUID(),
      task: { name: TASK_NAME, queue: this.queue, priority: 0, runAfter: null, backend: ALIAS },
      status: TaskResultStatus.READY,
      enqueuedAt: new Date(),
      startedAt: null,
      finishedAt: null,
      lastAttemptedAt: null,
      args,
      errors: [],
      workerIds: [],
    };
  }
}
