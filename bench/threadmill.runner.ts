import { hostname } from 'node:os';

import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { assertJsonSafe } from '../lib/core/task-serializer';
import {
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';
import { readyRecord } from '../test/helpers/ready-record';
import { ThreadmillConsumer, type RunTask } from './threadmill.consumer';

const ALIAS = 'bench';
/** The sample's no-op-like task, so the pool (the sample CLI) can run what the in-process figures enqueue. */
export const TASK_NAME = 'sample.echo';
const FILL_BATCH = 1000;
const FILL_IN_FLIGHT = 4;
/** How long an idle acquire blocks before it is re-issued (the pool's default order of magnitude). */
const IDLE_WAIT_MS = 5000;

/** The no-op task: what TaskRunner returns for a task that returns nothing. */
const noop: RunTask = async (record) => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue: null,
});

/**
 * Threadmill driven through the backend contract with the worker child's
 * consumer pattern (bench/threadmill.consumer.ts: acquire with max = free
 * slots, run, batch acknowledge) in this process, with a no-op in place of
 * `TaskRunner`. Enqueue builds the record the way
 * TaskService does (the JSON guard included) and calls the backend.
 */
export class ThreadmillRunner implements QueueRunner {
  readonly name = 'Threadmill';

  private constructor(
    private readonly backend: TaskBackend,
    private readonly queue: string,
  ) {}

  static async create(url: string, alias = ALIAS, queue = 'default'): Promise<ThreadmillRunner> {
    const backend = new RedisBackend(alias, { backend: RedisBackend, url, queues: [queue] });
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
    const consumer = this.consumer(slots, n, noop);
    return { run: () => consumer.run(), close: async () => undefined };
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

  close(): Promise<void> {
    return this.backend.close();
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
  private record(args: unknown[]): TaskRecord {
    assertJsonSafe(args, TASK_NAME, 'args');
    return readyRecord(this.backend.alias, { name: TASK_NAME, queue: this.queue, args });
  }
}
