import BeeQueue from 'bee-queue';

import { BEE_QUEUE } from './figures';
import {
  fillInBatches,
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';

/** What the benchmark puts in a job: nothing, a payload (memory figure) or a sequence number (latency). */
interface NoopData {
  payload?: string;
  seq?: number;
}

type Queue = BeeQueue<NoopData>;

/** The connection options node_redis 3 (Bee-Queue's client) is given; typed here, not by Bee-Queue's `any`. */
interface RedisOptions {
  host: string;
  port: number;
}

/** Bee-Queue's settings without `redis`, which its typings leave as `any`. */
type Settings = Omit<BeeQueue.QueueSettings, 'redis'>;

/**
 * The producer, as Bee-Queue's README has one ("Disable if this queue will
 * not process jobs / does not need to receive job events"): no blocking
 * connection, no Pub/Sub connection, and no table of the jobs it created,
 * which only job events would ever empty (with events off it grows by every
 * job saved: bee-queue#54). None of them is a round trip on the enqueue
 * path; they are what a user who never listens to job events turns off.
 */
const PRODUCER: Settings = { isWorker: false, getEvents: false, storeJobs: false };

/**
 * The worker: Bee-Queue's defaults (a blocking connection for BRPOPLPUSH,
 * `sendEvents` on, so every finished job is PUBLISHed for producers that
 * listen, in the same MULTI as its acknowledgement, which costs Redis a
 * command but no round trip; succeeded jobs kept), except `getEvents`: a
 * worker that subscribed would receive and parse its own 'succeeded' message
 * for every job, for events nobody here listens to, and the README says to
 * turn it off when not needed.
 */
const WORKER: Settings = { isWorker: true, getEvents: false };

const FILL_IN_FLIGHT = 4;

/**
 * Bee-Queue 2.0 driven as a user would have it: its defaults (jobs kept after
 * success, `removeOnSuccess: false`, as Threadmill keeps results and BullMQ
 * keeps completed jobs), the default key prefix `bq` (the benchmark's
 * FLUSHALL empties it), a no-op processor, and its own connections: one
 * producer queue for the whole run and a worker queue per consumer, each with
 * the settings above. Bulk enqueue is `saveAll` (one pipeline of `addJob`
 * script calls per batch).
 *
 * Bee-Queue talks to Redis through node_redis 3, not ioredis, so the
 * benchmark's round-trip counter (an ioredis hook) cannot see it:
 * `roundTripsCounted` is false and its round-trip figures are reported as not
 * measured. Redis commands and CPU are read from the server, as for the others.
 * Periodic stalled-job checks (`checkStalledJobs(interval)`) are the user's to
 * start and are not started; each worker runs the one check `process()` does.
 */
export class BeeQueueRunner implements QueueRunner {
  readonly name = BEE_QUEUE;
  readonly roundTripsCounted = false;

  private constructor(
    private readonly redis: RedisOptions,
    private readonly queueName: string,
    private readonly producer: Queue,
  ) {}

  static async create(url: string, queueName = 'bench'): Promise<BeeQueueRunner> {
    const { hostname, port } = new URL(url);
    const redis = { host: hostname, port: Number(port) };
    const producer = await BeeQueueRunner.open(redis, queueName, PRODUCER, 'producer');
    return new BeeQueueRunner(redis, queueName, producer);
  }

  async fill(n: number, payload?: string): Promise<void> {
    const data: NoopData = payload === undefined ? {} : { payload };
    await fillInBatches(n, FILL_IN_FLIGHT, (size) => this.saveAll(size, data));
  }

  async prepareDrain(
    n: number,
    slots: number,
  ): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
    let done = 0;
    let finish: () => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const finished = new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    const worker = await this.startWorker();
    worker.on('succeeded', () => {
      if (++done === n) finish();
    });
    // A no-op never fails: if one does, the figure would be wrong, so the run stops.
    worker.on('failed', (job, error) =>
      fail(new Error(`Bee-Queue job ${job.id} failed`, { cause: error })),
    );
    return {
      run: async () => {
        worker.process(slots, async () => null);
        await finished;
      },
      close: () => worker.close(),
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.producer.createJob({}).save();
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.producer.createJob({}).save();
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) await this.saveAll(Math.min(batch, n - sent), {});
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const worker = await this.startWorker();
    worker.process(slots, async (job) => {
      if (job.data.seq !== undefined) onStart(job.data.seq);
      return null;
    });
    return { stop: () => worker.close() };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.producer.createJob({ seq }).save();
  }

  async close(): Promise<void> {
    await this.producer.close();
  }

  /** `saveAll` of `size` jobs carrying `data`; Bee-Queue reports failed saves in a map instead of rejecting. */
  private async saveAll(size: number, data: NoopData): Promise<void> {
    const jobs = Array.from({ length: size }, () => this.producer.createJob(data));
    const errors = await this.producer.saveAll(jobs);
    const first = errors.values().next();
    if (!first.done)
      throw new Error(`Bee-Queue saveAll: ${errors.size} of ${size} jobs not saved`, {
        cause: first.value,
      });
  }

  /** A worker queue, connected (command and blocking connections, scripts loaded) before it is used. */
  private startWorker(): Promise<Queue> {
    return BeeQueueRunner.open(this.redis, this.queueName, WORKER, 'worker');
  }

  /** A queue with these settings, connected (closed again when it cannot connect). */
  private static async open(
    redis: RedisOptions,
    name: string,
    settings: Settings,
    role: string,
  ): Promise<Queue> {
    const queue = new BeeQueue<NoopData>(name, { ...settings, redis: { ...redis } });
    // Without a listener an 'error' event would throw; BullmqRunner logs its worker's the same way.
    queue.on('error', (error) => console.error(`Bee-Queue ${role} error:`, error));
    try {
      await queue.ready();
    } catch (error) {
      await queue.close().catch(() => undefined);
      throw error;
    }
    return queue;
  }
}
