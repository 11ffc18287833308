import { randomUUID } from 'node:crypto';

import { Pool } from 'pg';

import { pgTransaction } from '../../lib/backends/postgres';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { readyRecord } from '../../lib/backend-kit/contract/ready-record';
import { storeRules } from '../../lib/lifecycle/store-rules';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { percentile } from '../metrics';
import { BenchRedisServer } from '../redis-server';
import type { BenchPostgresServer } from './bench-postgres-server';
import type { PostgresBenchConfig } from './postgres-bench-config';

/** The outbox's figures of one repetition: commit-to-Redis latency, and a bulk's rate through it. */
export interface OutboxSample {
  p50Ms: number;
  p99Ms: number;
  /** Tasks moved per second, from the first bulk's commit to the last task in Redis. */
  bulkPerSecond: number;
}

type Log = (line: string) => void;

/**
 * The rows of a Redis alias's outbox in the app's Postgres, on the run's
 * Postgres and a private Redis: how long a committed task takes to reach
 * Redis, one transaction at a time at the pickup row's rate, and how fast
 * bulks committed back to back are moved. Each repetition on a fresh
 * database, its relay in this process.
 */
export class OutboxBench {
  constructor(
    private readonly server: BenchPostgresServer,
    private readonly config: PostgresBenchConfig,
    private readonly log: Log,
  ) {}

  async run(): Promise<OutboxSample[]> {
    const redis = await BenchRedisServer.start();
    try {
      const samples: OutboxSample[] = [];
      for (let rep = 0; rep < this.config.reps; rep++) {
        const { name, url } = await this.server.createDatabase('outbox');
        const sample = await this.measure(url, redis.url);
        await this.server.dropDatabase(name);
        samples.push(sample);
        this.log(
          `postgres outbox #${rep + 1}: p50 ${sample.p50Ms.toFixed(2)} / p99 ${sample.p99Ms.toFixed(2)} ms, bulk ${Math.round(sample.bulkPerSecond)} tasks/s`,
        );
      }
      return samples;
    } finally {
      await redis.stop();
    }
  }

  private async measure(postgresUrl: string, redisUrl: string): Promise<OutboxSample> {
    const alias = `outbox-${randomUUID()}`;
    const backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: redisUrl,
        options: { outbox: { url: postgresUrl, batchSize: this.config.bulkBatch } },
      },
      storeRules,
    );
    const pool = new Pool({ connectionString: postgresUrl, max: 4 });
    /** When each task reached Redis, by id: the live feed's `enqueued` event of its move. */
    const arrived = new Map<string, number>();
    const waiters = new Set<() => void>();
    const unsubscribe = await backend.feeds.subscribeLive((events) => {
      const at = performance.now();
      for (const event of events) if (event.event === 'enqueued') arrived.set(event.id, at);
      for (const waiter of [...waiters]) waiter();
    });
    const until = (done: () => boolean): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!done()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    const commit = async (records: TaskRecord[]): Promise<number> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await backend.tasks.enqueueInTransaction!(pgTransaction(client), records);
        await client.query('COMMIT');
        return performance.now();
      } finally {
        client.release();
      }
    };
    try {
      // Warm-up: the migration, the relay's lock and its LISTEN.
      const warm = readyRecord(alias);
      await commit([warm]);
      await until(() => arrived.has(warm.id));

      const { latencyRate, latencyCount, enqueueTasks, bulkBatch } = this.config;
      const latencies: number[] = [];
      const everyMs = 1000 / latencyRate;
      const start = performance.now();
      const sent: Promise<void>[] = [];
      for (let i = 0; i < latencyCount; i++) {
        const due = start + i * everyMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const record = readyRecord(alias);
        sent.push(
          commit([record]).then(async (committedAt) => {
            await until(() => arrived.has(record.id));
            latencies.push((arrived.get(record.id) as number) - committedAt);
          }),
        );
      }
      await Promise.all(sent);

      const bulks = Array.from({ length: Math.ceil(enqueueTasks / bulkBatch) }, () =>
        Array.from({ length: bulkBatch }, () => readyRecord(alias)),
      );
      const firstCommitAt = await commit(bulks[0]);
      for (const bulk of bulks.slice(1)) await commit(bulk);
      await until(() => bulks.every((bulk) => bulk.every((record) => arrived.has(record.id))));
      const lastArrival = Math.max(
        ...bulks.flatMap((bulk) => bulk.map((record) => arrived.get(record.id) as number)),
      );
      const seconds = (lastArrival - firstCommitAt) / 1000;
      return {
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        bulkPerSecond: (bulks.length * bulkBatch) / seconds,
      };
    } finally {
      await unsubscribe();
      await backend.close();
      await pool.end();
    }
  }
}
