import type { ChainableCommander } from 'ioredis';

import { ACTIVITY_SEGMENTS, ActivityBuckets, type ActivityTally } from '../activity-buckets';
import type { ActivityQuery, BackendActivity, QueueActivity } from '../../core/task-listing';
import type { RedisAliasContext } from './redis-alias-context';
import { TASK_HASH_FIELDS } from './redis-task-hash';

/** One bucket's sampled ids of one queue, waiting for their hashes. */
interface SampledIds {
  tally: ActivityTally;
  bucket: number;
  ids: string[];
}

/**
 * The activity of one RedisBackend alias per bucket, from what the scripts
 * already write (nothing more on the path every task takes): enqueues from
 * the per-second ingress hashes (RedisKeys.ingress), finishes by ZCOUNT of
 * the history sets (scored by finish time), and the first few finished ids
 * of each bucket read whole for the wait and run means. Three round trips
 * whatever the alias holds: Redis's time, one pipeline of counts and
 * sample ids, one of the sampled hashes.
 *
 * @internal
 */
export class RedisActivity {
  constructor(private readonly context: RedisAliasContext) {}

  async read(query: ActivityQuery): Promise<BackendActivity> {
    const { connection, keys, scripts, settings } = this.context;
    const { nowMs } = await connection.run(() => scripts.storeTime(keys.maintenanceHeartbeat));
    const buckets = ActivityBuckets.plan(query, nowMs);
    const perBucket = buckets.samplesPerBucket(settings.queues.length);
    // Finished tasks within the longest retention, as telemetry counts them.
    const kept = nowMs - settings.retention.longestMaxAgeMs;
    const pipeline = connection.client.pipeline();
    // Per group of replies: how many, and what to make of them.
    const readers: { width: number; read: (values: unknown[]) => void }[] = [];
    const tallies = new Map<string, ActivityTally>();
    const sampled: SampledIds[] = [];
    for (const queue of settings.queues) {
      const tally = buckets.tally();
      tallies.set(queue, tally);
      const firstHour = Math.floor(buckets.start / 3_600_000);
      for (let hour = firstHour; hour <= Math.floor((buckets.end - 1) / 3_600_000); hour++) {
        pipeline.hgetall(keys.ingress(queue, hour));
        readers.push({
          width: 1,
          read: ([counts]) => {
            for (const [second, count] of Object.entries(counts as Record<string, string>)) {
              tally.add('enqueued', buckets.indexOf(Number(second) * 1000), Number(count));
            }
          },
        });
      }
      for (const segment of ACTIVITY_SEGMENTS) {
        const history = keys.history(queue, segment);
        for (let bucket = 0; bucket < buckets.count; bucket++) {
          const { to } = buckets.bounds(bucket);
          const from = Math.max(buckets.bounds(bucket).from, kept);
          if (from >= to) continue;
          pipeline.zcount(history, from, `(${to}`);
          pipeline.zrangebyscore(history, from, `(${to}`, 'LIMIT', 0, perBucket);
          readers.push({
            width: 2,
            read: ([count, ids]) => {
              tally.add(segment, bucket, Number(count));
              const sample = ids as string[];
              if (sample.length > 0) sampled.push({ tally, bucket, ids: sample });
            },
          });
        }
      }
    }
    const values = await this.exec(pipeline);
    let next = 0;
    for (const { width, read } of readers) {
      read(values.slice(next, next + width));
      next += width;
    }
    await this.readSamples(sampled);
    const queues: Record<string, QueueActivity> = {};
    for (const [queue, tally] of tallies) queues[queue] = tally.result();
    return { start: new Date(buckets.start), bucketMs: buckets.bucketMs, queues };
  }

  /** Reads the sampled hashes in one pipeline and adds each readable record's times to its bucket. */
  private async readSamples(sampled: readonly SampledIds[]): Promise<void> {
    if (sampled.length === 0) return;
    const { connection, keys, codec, logger } = this.context;
    const pipeline = connection.client.pipeline();
    for (const { ids } of sampled) {
      for (const id of ids) pipeline.hmget(keys.task(id), ...TASK_HASH_FIELDS);
    }
    const values = await this.exec(pipeline);
    let next = 0;
    for (const { tally, bucket, ids } of sampled) {
      for (const id of ids) {
        try {
          const record = codec.decodeStored(id, values[next] as (string | null)[]);
          if (record) tally.sample(bucket, record);
        } catch (readError) {
          logger.debug(`activity skipped task ${id}: ${String(readError)}`);
        }
        next++;
      }
    }
  }

  /** The replies of `pipeline`, in order; throws the first command's error as the connection words it. */
  private async exec(pipeline: ChainableCommander): Promise<unknown[]> {
    const { connection } = this.context;
    const replies = await connection.run(async () => (await pipeline.exec()) ?? []);
    return replies.map(([error, value]) => {
      if (error) throw connection.failure(error);
      return value;
    });
  }
}
