import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './metrics';
import type { RunningConsumer, TaskStartListener } from './queue-runner.interface';

export interface LatencySample {
  sent: number;
  seen: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What the pickup figure needs of a runner, on any store. */
export interface PickupRunner {
  startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer>;
  enqueueOne(seq: number): Promise<void>;
}

/** How long the figure waits for the last task to start once every enqueue was sent (ms). */
const GRACE_MS = 5000;

/**
 * Pickup latency on an empty store: `count` enqueues sent at a steady
 * `ratePerSecond` to a consumer of `slots`, each latency from just before
 * its enqueue call to the moment the handler starts it, on one clock (same
 * process). Enqueues are not awaited: each goes out on time whatever the
 * one before it costs.
 */
export async function pacedPickup(
  runner: PickupRunner,
  ratePerSecond: number,
  count: number,
  slots: number,
): Promise<LatencySample> {
  const sentAt = new Float64Array(count);
  const latencies: number[] = [];
  let allSeen: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (allSeen = resolve));
  const consumer = await runner.startConsumer(slots, (seq) => {
    latencies.push(performance.now() - sentAt[seq]);
    if (latencies.length === count) allSeen();
  });
  try {
    await sleep(300); // let the consumer settle into its idle wait
    const interval = 1000 / ratePerSecond;
    const start = performance.now();
    for (let seq = 0; seq < count; seq++) {
      const wait = start + seq * interval - performance.now();
      if (wait > 1) await sleep(wait);
      sentAt[seq] = performance.now();
      void runner.enqueueOne(seq).catch((error: unknown) => console.error('enqueue failed', error));
    }
    await Promise.race([seen, sleep(GRACE_MS)]);
  } finally {
    await consumer.stop();
  }
  return {
    sent: count,
    seen: latencies.length,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    p99Ms: percentile(latencies, 99),
    maxMs: percentile(latencies, 100),
  };
}
