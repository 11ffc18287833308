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
  const exitIfEmpty = async (): Promise<void> => {
    if (exiting) return;
    const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
    if (counts.waiting + counts.active + counts.prioritized > 0 || exiting) return;
    exiting = true;
    await worker.close();
    await queue.close();
    process.exit(0);
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
