import {
  Logger,
  makeWorkerUtils,
  run,
  type Runner,
  type Task,
  type WorkerUtils,
} from 'graphile-worker';

import {
  fillInBatches,
  inParallel,
  type RunningConsumer,
  type TaskStartListener,
} from '../queue-runner.interface';
import {
  StartedCounter,
  type PostgresQueueRunner,
  type PreparedDrain,
} from './postgres-queue-runner';

const TASK = 'noop';
/** Bulk adds outstanding while filling (untimed), as the other runners fill. */
const FILL_IN_FLIGHT = 4;
/** graphile-worker logs each worker's start and stop at info level: not the benchmark's output. */
const quiet = new Logger(() => () => undefined);

/**
 * graphile-worker with its defaults (schema `graphile_worker`, a pool of 10,
 * LISTEN/NOTIFY wake-ups with a 2 s poll, completed jobs deleted), its
 * `concurrency` as the slots, jobs added through WorkerUtils (`addJob`, and
 * `addJobs` for the bulk).
 */
export class GraphileWorkerRunner implements PostgresQueueRunner {
  readonly name = 'graphile-worker';
  private opened: WorkerUtils | null = null;
  private url = '';

  constructor(readonly version: string) {}

  private get utils(): WorkerUtils {
    if (this.opened === null) throw new Error('graphile-worker: used before connect');
    return this.opened;
  }

  async connect(url: string): Promise<void> {
    this.url = url;
    const utils = await makeWorkerUtils({ connectionString: url, logger: quiet });
    await utils.migrate();
    this.opened = utils;
  }

  async disconnect(): Promise<void> {
    const utils = this.opened;
    this.opened = null;
    await utils?.release();
  }

  async fill(n: number): Promise<void> {
    await fillInBatches(n, FILL_IN_FLIGHT, (size) =>
      this.utils.addJobs(Array.from({ length: size }, () => ({ identifier: TASK, payload: {} }))),
    );
  }

  /**
   * The worker starts untimed: each of its slots takes a job and holds it
   * until the timed run opens the gate, so its connecting and its first
   * fetches are not in the figure (as the other runners connect first).
   */
  async prepareDrain(n: number, slots: number): Promise<PreparedDrain> {
    const before = await this.waiting();
    const counter = new StartedCounter(n, async () => (await this.waiting()) <= before - n);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const runner = await this.worker(slots, async () => {
      await gate;
      counter.started();
    });
    return {
      run: async () => {
        open();
        await counter.finished();
      },
      close: () => runner.stop(),
      finished: () => counter.count,
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.utils.addJob(TASK, {});
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.utils.addJob(TASK, {});
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.utils.addJobs(
        Array.from({ length: size }, () => ({ identifier: TASK, payload: {} })),
      );
    }
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const runner = await this.worker(slots, async (payload) => {
      onStart((payload as { seq: number }).seq);
    });
    return { stop: () => runner.stop() };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.utils.addJob(TASK, { seq });
  }

  private worker(concurrency: number, task: Task): Promise<Runner> {
    return run({
      connectionString: this.url,
      concurrency,
      noHandleSignals: true,
      logger: quiet,
      taskList: { [TASK]: task },
    });
  }

  /** Jobs not yet completed: graphile-worker deletes a job once it completed. */
  private waiting(): Promise<number> {
    return this.utils.withPgClient(async (client) => {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM graphile_worker._private_jobs',
      );
      return rows[0].n;
    });
  }
}
