import type { ChainableCommander } from 'ioredis';

import type { BackendTelemetry, QueueStats } from '../../core/backend-telemetry.interface';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import type { RedisScripts } from './redis-scripts';

/** Counts read per queue before its ingress reads (see `read`). */
const READS_PER_QUEUE = 9;

/**
 * The telemetry of one RedisBackend alias: counts per segment and rates over
 * a window. History scores and ingress seconds are Redis's time (the scripts
 * write them with storeClock), so the window ends at Redis's time too, read
 * first: a reader whose clock is off still counts exactly the last
 * `intervalMs` of work. One call costs two round trips: the time, then one
 * pipeline of every count.
 *
 * @internal
 */
export class RedisTelemetry {
  constructor(
    private readonly queues: readonly string[],
    /** How long results are kept at most: the window of the finished counts. */
    private readonly keptMs: number,
    private readonly keys: RedisKeys,
    private readonly scripts: RedisScripts,
    private readonly connection: RedisConnection,
  ) {}

  async read(intervalMs: number): Promise<BackendTelemetry> {
    const { nowMs: now } = await this.connection.run(() =>
      this.scripts.storeTime(this.keys.maintenanceHeartbeat),
    );
    const kept = now - this.keptMs;
    const windowStart = now - intervalMs;
    const pipeline = this.connection.client.pipeline();
    for (const queue of this.queues) {
      const successful = this.keys.history(queue, 'successful');
      const failed = this.keys.history(queue, 'failed');
      const cancelled = this.keys.history(queue, 'cancelled');
      pipeline
        .zcard(this.keys.queue(queue))
        .zcard(this.keys.running(queue))
        .zcard(this.keys.deferred(queue))
        .zcount(successful, kept, '+inf')
        .zcount(failed, kept, '+inf')
        .zcount(successful, windowStart, '+inf')
        .zcount(failed, windowStart, '+inf')
        .zcount(cancelled, kept, '+inf')
        .zcount(cancelled, windowStart, '+inf');
    }
    const ingressReads = this.queues.map((queue) =>
      this.readIngress(pipeline, queue, windowStart, now),
    );
    const replies = await this.connection.run(async () => (await pipeline.exec()) ?? []);
    const values = replies.map(([error, value]) => {
      if (error) throw this.connection.failure(error);
      return value;
    });
    const numbers = values.slice(0, this.queues.length * READS_PER_QUEUE).map(Number);
    let nextIngressReply = this.queues.length * READS_PER_QUEUE;
    const queues: Record<string, QueueStats> = {};
    this.queues.forEach((queue, q) => {
      const [ready, running, deferred, successful, failed, doneOk, doneFailed, ...rest] =
        numbers.slice(q * READS_PER_QUEUE, (q + 1) * READS_PER_QUEUE);
      const [cancelled, doneCancelled] = rest;
      const { replies: ingressReplies, sum } = ingressReads[q];
      const ingress = sum(values.slice(nextIngressReply, nextIngressReply + ingressReplies));
      nextIngressReply += ingressReplies;
      queues[queue] = {
        counts: { ready, running, deferred, successful, failed, cancelled },
        rates: {
          intervalMs,
          ingress,
          egress: doneOk + doneFailed + doneCancelled,
          failed: doneFailed,
        },
      };
    });
    return { queues };
  }

  /**
   * Queues on `pipeline` (after every other read) the ingress counts of one
   * queue from `windowStart` to `now`: per hour, HMGET of the seconds wanted,
   * or HGETALL of an hour the window covers whole. Counts are kept per
   * second, so a second the window covers in part counts in proportion
   * (the estimate is rounded to a whole number of tasks).
   */
  private readIngress(
    pipeline: ChainableCommander,
    queue: string,
    windowStart: number,
    now: number,
  ): { replies: number; sum: (values: unknown[]) => number } {
    const first = Math.floor(windowStart / 1000);
    const last = Math.floor(now / 1000);
    const weightOf = (second: number): number => {
      const start = second * 1000;
      const end = Math.min(start + 1000, now);
      return end > start ? Math.max(0, end - Math.max(start, windowStart)) / (end - start) : 1;
    };
    const reads: { seconds: number[] | null }[] = [];
    for (let hour = Math.floor(first / 3600); hour <= Math.floor(last / 3600); hour++) {
      const from = Math.max(first, hour * 3600);
      const to = Math.min(last, hour * 3600 + 3599);
      const key = this.keys.ingress(queue, hour);
      if (from === hour * 3600 && to === hour * 3600 + 3599 && weightOf(from) === 1) {
        pipeline.hgetall(key);
        reads.push({ seconds: null });
      } else {
        const seconds = Array.from({ length: to - from + 1 }, (_, i) => from + i);
        pipeline.hmget(key, ...seconds.map(String));
        reads.push({ seconds });
      }
    }
    const sum = (values: unknown[]): number => {
      let total = 0;
      reads.forEach(({ seconds }, i) => {
        if (seconds === null) {
          for (const count of Object.values(values[i] as Record<string, string>)) {
            total += Number(count);
          }
        } else {
          (values[i] as (string | null)[]).forEach((count, k) => {
            if (count !== null) total += Number(count) * weightOf(seconds[k]);
          });
        }
      });
      return Math.round(total);
    };
    return { replies: reads.length, sum };
  }
}
