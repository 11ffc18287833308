/**
 * How soon `waitForResult` resolves after a task finishes on Redis (the
 * target: a median under 50 ms).
 *
 *   npm run -s bench:wait -- [--tasks 200]
 *
 * On a private redis-server, one RedisBackend waits (its own connections,
 * as another process would have) while another leases and acknowledges each
 * task, one at a time. The latency is the time from just before the
 * acknowledge is sent to the wait resolving: the acknowledge's round trip,
 * the script's PUBLISH, the delivery to the subscriber and the read of the
 * final result. Prints the median, p95 and max as JSON; exits 1 when the
 * median exceeds the target.
 */
import { performance } from 'node:perf_hooks';

import { RedisBackend } from '../lib/backends/redis/redis.backend';
import { TaskResultStatus, waitForFinished } from '../lib/core';
import { readyRecord } from '../test/helpers/ready-record';
import { startRedisServer } from '../test/helpers/redis-server';
import { percentile } from './metrics';

const TARGET_MEDIAN_MS = 50;

function argValue(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

async function main(): Promise<void> {
  const tasks = argValue('--tasks', 200);
  const server = await startRedisServer();
  const config = { backend: RedisBackend, url: server.url, queues: ['default'] };
  const waiter = new RedisBackend('wait-latency', config);
  const worker = new RedisBackend('wait-latency', config);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < tasks; i++) {
      const task = await worker.enqueue(readyRecord('wait-latency', { name: 'bench.noop' }));
      const [leased] = await worker.acquire(['default'], { workerId: 'bench:1-0', timeoutMs: 0 });
      let resolvedAt = 0;
      const waiting = waitForFinished(waiter, task.id, { timeoutMs: 10_000 }).then((record) => {
        resolvedAt = performance.now();
        return record;
      });
      // Time for the wait to subscribe and read the task RUNNING before it finishes.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const sentAt = performance.now();
      await worker.acknowledge([
        { ...leased, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue: i },
      ]);
      const record = await waiting;
      if (record.status !== TaskResultStatus.SUCCESSFUL) throw new Error(`task ${i} not final`);
      latencies.push(resolvedAt - sentAt);
    }
  } finally {
    await waiter.close();
    await worker.close();
    await server.stop();
  }
  const round = (ms: number): number => Math.round(ms * 100) / 100;
  const median = percentile(latencies, 50);
  const report = {
    tasks,
    medianMs: round(median),
    p95Ms: round(percentile(latencies, 95)),
    maxMs: round(Math.max(...latencies)),
    targetMedianMs: TARGET_MEDIAN_MS,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  if (median > TARGET_MEDIAN_MS) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
