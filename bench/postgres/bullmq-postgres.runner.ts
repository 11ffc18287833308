import { createPostgresBackend, Queue, Worker, type Job } from 'bullmq';

import { fillInBatches, inParallel } from '../queue-runner.interface';
import type { RunningConsumer, TaskStartListener } from '../queue-runner.interface';
import type { PostgresQueueRunner, PreparedDrain } from './postgres-queue-runner';

const QUEUE = 'bench';
const JOB_NAME = 'noop';
const FILL_IN_FLIGHT = 4;

/** Its pool config: the schema laid out on connect (\`migrate\`), which BullMQ asks to be said. */
function connectionOf(url: string) {
  return { connectionString: url, migrate: true };
}

function openQueue(url: string) {
  return new Queue(QUEUE, { connection: connectionOf(url) }, createPostgresBackend);
}
type PostgresQueue = ReturnType<typeof openQueue>;

/**
 * BullMQ on its own Postgres backend (`createPostgresBackend`), with its
 * defaults: completed jobs kept (as Threadmill keeps results), its own
 * schema, its own pool and LISTEN connection per Queue and Worker.
 */
export class BullmqPostgresRunner implements PostgresQueueRunner {
  readonly name = 'BullMQ';
  private queue: PostgresQueue | null = null;
  private url = '';

  constructor(readonly version: string) {}

  private get q(): PostgresQueue {
    if (this.queue === null) throw new Error('BullMQ on Postgres: used before connect');
    return this.queue;
  }

  async connect(url: string): Promise<void> {
    this.url = url;
    this.queue = openQueue(url);
    await this.queue.waitUntilReady();
  }

  async disconnect(): Promise<void> {
    const queue = this.queue;
    this.queue = null;
    await queue?.close();
  }

  async fill(n: number): Promise<void> {
    await fillInBatches(n, FILL_IN_FLIGHT, (size) =>
      this.q.addBulk(Array.from({ length: size }, () => ({ name: JOB_NAME, data: {} }))),
    );
  }

  async prepareDrain(n: number, slots: number): Promise<PreparedDrain> {
    let done = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const worker = this.worker(slots, async () => null);
    // 'completed' comes once the outcome is stored.
    worker.on('completed', () => {
      if (++done === n) finish();
    });
    await worker.waitUntilReady();
    return {
      run: async () => {
        void worker.run();
        await finished;
      },
      close: () => worker.close(),
      finished: () => done,
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.q.add(JOB_NAME, {});
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.q.add(JOB_NAME, {});
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.q.addBulk(Array.from({ length: size }, () => ({ name: JOB_NAME, data: {} })));
    }
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const worker = this.worker(slots, async (job) => {
      onStart((job.data as { seq: number }).seq);
      return null;
    });
    await worker.waitUntilReady();
    void worker.run();
    return { stop: () => worker.close() };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.q.add(JOB_NAME, { seq });
  }

  private worker(slots: number, processor: (job: Job) => Promise<null>) {
    const worker = new Worker(
      QUEUE,
      processor,
      { connection: connectionOf(this.url), concurrency: slots, autorun: false },
      createPostgresBackend,
    );
    worker.on('error', (error) => console.error('BullMQ (Postgres) worker error:', error));
    return worker;
  }
}
