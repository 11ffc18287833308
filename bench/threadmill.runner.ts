import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { BackendConstructor } from '../lib/core/backend-config.interface';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { BackendRunner, TASK_NAME } from './backend.runner';
import { THREADMILL } from './figures';
import { storeIdleSchedules } from './schedule-pass';
import { measureDashboardPaint, type DashboardStore } from './dashboard-paint';
import { measureWaits } from './wait-latency';

export { TASK_NAME } from './backend.runner';

const ALIAS = 'bench';
/** Enqueue batches outstanding while filling: Redis overlaps them with the client's encoding. */
const FILL_IN_FLIGHT = 4;

/** Threadmill on the Redis backend, on the benchmark's Redis (see BackendRunner). */
export class ThreadmillRunner extends BackendRunner {
  private constructor(
    readonly name: string,
    protected readonly backend: TaskBackend,
    queue: string,
    /** Another instance of the backend on the same store, as another process would have. */
    private readonly another: () => TaskBackend,
    /** How the dashboard app of measureDashboardPaint opens the same store. */
    private readonly dashboardStore: DashboardStore,
  ) {
    super(queue, FILL_IN_FLIGHT);
  }

  static create(url: string, alias = ALIAS, queue = 'default'): Promise<ThreadmillRunner> {
    return ThreadmillRunner.of(RedisBackend, THREADMILL, url, alias, queue);
  }

  /**
   * The runner of one build's RedisBackend, named `name` in logs and results:
   * this tree's, or another build's (`npm run bench -- --against <ref>`
   * drives both through the same runner).
   */
  static async of(
    Backend: BackendConstructor,
    name: string,
    url: string,
    alias = ALIAS,
    queue = 'default',
  ): Promise<ThreadmillRunner> {
    const open = (): TaskBackend => new Backend(alias, { backend: Backend, url, queues: [queue] });
    const backend = open();
    await backend.ping();
    return new ThreadmillRunner(name, backend, queue, open, { Backend, url, alias, queue });
  }

  async measureWaits(waits: number): Promise<number[]> {
    const waiter = this.another();
    try {
      return await measureWaits(this.backend, waiter, this.queue, () => this.record([]), waits);
    } finally {
      await waiter.close();
    }
  }

  async measureDashboardPaint(waiting: number, loads: number): Promise<number[]> {
    await this.fill(waiting);
    return measureDashboardPaint(this.dashboardStore, loads);
  }

  prepareSchedulePasses(schedules: number): Promise<() => Promise<number>> {
    return storeIdleSchedules(this.backend, TASK_NAME, schedules);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
