import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';

import {
  fillInBatches,
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';

const JOB_NAME = 'noop';
const FILL_IN_FLIGHT = 4;

/**
 * BullMQ driven with its defaults (completed jobs kept, as Threadmill keeps
 * results), a no-op processor, and its own connections as a user would have.
 */
export class BullmqRunner implements QueueRunner {
  readonly name = 'BullMQ';
  private queue: Queue;
  private readonly connection: ConnectionOptions;

  constructor(
    url: string,
    private readonly queueName = 'bench',
  ) {
    const { hostname, port } = new URL(url);
    this.connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
    this.queue = new Queue(this.queueName, { connection: this.connection });
  }

  async fill(n: number, payload?: string): Promise<void> {
    const data = payload === undefined ? {} : { payload };
    await fillInBatches(n, FILL_IN_FLIGHT, (size) =>
      this.queue.addBulk(Array.from({ length: size }, () => ({ name: JOB_NAME, data }))),
    );
  }

  async prepareDrain(
    n: number,
    slots: number,
  ): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
    let done = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const worker = new Worker(this.queueName, async () => null, {
      connection: this.connection,
      concurrency: slots,
      autorun: false,
    });
    worker.on('completed', () => {
      if (++done === n) finish();
    });
    worker.on('error', (error) => console.error('BullMQ worker error:', error));
    await worker.waitUntilReady();
    return {
      run: async () => {
        void worker.run();
        await finished;
      },
      close: () => worker.close(),
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.queue.add(JOB_NAME, {});
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.queue.add(JOB_NAME, {});
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.queue.addBulk(Array.from({ length: size }, () => ({ name: JOB_NAME, data: {} })));
    }
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const worker = new Worker(
      this.queueName,
      async (job: Job<{ seq: number }>) => {
        onStart(job.data.seq);
        return null;
      },
      { connection: this.connection, concurrency: slots, autorun: false },
    );
    worker.on('error', (error) => console.error('BullMQ worker error:', error));
    await worker.waitUntilReady();
    void worker.run();
    return { stop: () => worker.close() };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.queue.add(JOB_NAME, { seq });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
