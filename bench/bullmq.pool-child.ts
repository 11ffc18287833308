import { setTimeout as sleep } from 'node:timers/promises';

import { Queue, Worker } from 'bullmq';

/**
 * One BullMQ worker process for the pool figure, the closest BullMQ has to
 * `threadmill worker --exit-empty`: a Worker with `concurrency` slots that
 * exits 0 once the queue has nothing waiting or active.
 *
 * argv: <redis url> <queue name> <concurrency>
 */
async function main(): Promise<void> {
  const [url, queueName, concurrencyText] = process.argv.slice(2);
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const queue = new Queue(queueName, { connection });
  const worker = new Worker(queueName, async () => null, {
    connection,
    concurrency: Number(concurrencyText),
    autorun: false,
  });
  let exiting = false;
  // 'drained' fires when nothing is waiting; jobs still active finish within moments,
  // so look again briefly (bounded) rather than wait for a 'drained' that will not come.
  const exitIfEmpty = async (): Promise<void> => {
    if (exiting) return;
    exiting = true;
    for (let look = 0; look < 500; look++) {
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
      if (counts.waiting + counts.prioritized > 0) {
        exiting = false; // more work arrived: wait for the next 'drained'
        return;
      }
      if (counts.active === 0) {
        await worker.close();
        await queue.close();
        process.exit(0);
      }
      await sleep(20);
    }
    exiting = false;
  };
  worker.on('drained', () => void exitIfEmpty());
  worker.on('error', (error) => console.error('BullMQ worker error:', error));
  await worker.waitUntilReady();
  void worker.run();
  await exitIfEmpty();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
