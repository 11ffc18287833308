import PgBoss from 'pg-boss';

import {
  fillInBatches,
  inParallel,
  type RunningConsumer,
  type TaskStartListener,
} from '../queue-runner.interface';
import type { PostgresQueueRunner, PreparedDrain } from './postgres-queue-runner';

const QUEUE = 'bench';
/** Bulk inserts outstanding while filling (untimed), as the other runners fill. */
const FILL_IN_FLIGHT = 4;
/** Jobs per fetch of the pickup figure's worker: more than 2 s of 200 jobs/s. */
const PICKUP_BATCH = 1000;

/**
 * pg-boss with its defaults (schema `pgboss`, a pool of 10, maintenance and
 * schedules on, a queue of the standard policy). Its worker (`work()`) waits
 * out its polling interval after every batch it fetched, full or not (2 s by
 * default, 0.5 s at least), so through it a slot drains at most one batch per
 * interval: the drains run each slot as a loop of pg-boss's own `fetch` and
 * `complete`, the calls its worker makes, without that wait. The pickup
 * figure, where the wait is what a user gets, goes through `work()`.
 */
export class PgBossRunner implements PostgresQueueRunner {
  readonly name = 'pg-boss';
  private opened: PgBoss | null = null;

  constructor(readonly version: string) {}

  private get boss(): PgBoss {
    if (this.opened === null) throw new Error('pg-boss: used before connect');
    return this.opened;
  }

  async connect(url: string): Promise<void> {
    const boss = new PgBoss({ connectionString: url });
    boss.on('error', (error) => console.error('pg-boss error:', error));
    await boss.start();
    await boss.createQueue(QUEUE);
    this.opened = boss;
  }

  async disconnect(): Promise<void> {
    const boss = this.opened;
    this.opened = null;
    await boss?.stop({ graceful: false, wait: true });
  }

  async fill(n: number): Promise<void> {
    await fillInBatches(n, FILL_IN_FLIGHT, (size) =>
      this.boss.insert(Array.from({ length: size }, () => ({ name: QUEUE, data: {} }))),
    );
  }

  async prepareDrain(n: number, slots: number): Promise<PreparedDrain> {
    const boss = this.boss;
    let claimed = 0;
    let done = 0;
    let stopped = false;
    // Each slot fetches one job and completes it, until `n` are claimed (a
    // backlog figure leaves more waiting) or none is left.
    const slot = async (): Promise<void> => {
      while (claimed < n && !stopped) {
        claimed++;
        const jobs = await boss.fetch(QUEUE);
        if (jobs.length === 0) return;
        await boss.complete(
          QUEUE,
          jobs.map((job) => job.id),
        );
        done += jobs.length;
      }
    };
    return {
      run: async () => {
        await Promise.all(Array.from({ length: slots }, slot));
        if (done !== n && !stopped) throw new Error(`pg-boss drained ${done} of ${n} jobs`);
      },
      close: async () => {
        stopped = true;
      },
      finished: () => done,
    };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.boss.send(QUEUE, {});
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.boss.send(QUEUE, {});
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.boss.insert(Array.from({ length: size }, () => ({ name: QUEUE, data: {} })));
    }
  }

  /**
   * `work()` with its default polling (2 s): `slots` workers, each fetching
   * up to PICKUP_BATCH jobs a poll, so the pickup figure's 200 jobs/s do not
   * outrun them and the figure is the polling's wait, not a growing backlog.
   */
  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const boss = this.boss;
    for (let i = 0; i < slots; i++) {
      await boss.work<{ seq: number }>(QUEUE, { batchSize: PICKUP_BATCH }, async (jobs) => {
        for (const job of jobs) onStart(job.data.seq);
      });
    }
    return { stop: () => boss.offWork(QUEUE) };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.boss.send(QUEUE, { seq });
  }
}
