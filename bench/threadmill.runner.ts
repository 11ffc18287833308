import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { BackendRunner } from './backend.runner';

export { TASK_NAME } from './backend.runner';

const ALIAS = 'bench';
/** Enqueue batches outstanding while filling: Redis overlaps them with the client's encoding. */
const FILL_IN_FLIGHT = 4;

/** Threadmill on the Redis backend, on the benchmark's Redis (see BackendRunner). */
export class ThreadmillRunner extends BackendRunner {
  readonly name = 'Threadmill';

  private constructor(
    protected readonly backend: TaskBackend,
    queue: string,
  ) {
    super(queue, FILL_IN_FLIGHT);
  }

  static async create(url: string, alias = ALIAS, queue = 'default'): Promise<ThreadmillRunner> {
    const backend = new RedisBackend(alias, { backend: RedisBackend, url, queues: [queue] });
    await backend.ping();
    return new ThreadmillRunner(backend, queue);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
