import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { BackendConfig, BackendConstructor } from '../lib/core/backend-config.interface';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { BackendRunner, TASK_NAME } from './backend.runner';
import { THREADMILL } from './figures';
import { storeIdleSchedules } from './schedule-pass';
import { measureCliStart, type CliStartSample } from './cli-start';
import { measureDashboardPaint, type DashboardStore } from './dashboard-paint';
import { measureWaits } from './wait-latency';
import { currentThreadmillApi, type ThreadmillApi } from './task-service.producer';
import { storeRules } from '../lib/lifecycle/store-rules';

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
    /** How the store opens elsewhere: the dashboard app of measureDashboardPaint, the TaskService context. */
    private readonly storeConfig: DashboardStore,
    api: ThreadmillApi,
  ) {
    super(queue, FILL_IN_FLIGHT, api);
  }

  static create(url: string, alias = ALIAS, queue = 'default'): Promise<ThreadmillRunner> {
    return ThreadmillRunner.of(RedisBackend, currentThreadmillApi, THREADMILL, url, alias, queue);
  }

  /**
   * The runner of one build's RedisBackend and TaskService, named `name` in
   * logs and results: this tree's, or another build's (`npm run bench --
   * --against <ref>` drives both through the same runner).
   */
  static async of(
    Backend: BackendConstructor,
    api: ThreadmillApi,
    name: string,
    url: string,
    alias = ALIAS,
    queue = 'default',
  ): Promise<ThreadmillRunner> {
    const open = (): TaskBackend =>
      new Backend(alias, { backend: Backend, url, queues: [queue] }, storeRules);
    const backend = open();
    await backend.ping();
    const store = { Backend, url, alias, queue };
    return new ThreadmillRunner(name, backend, queue, open, store, api);
  }

  protected backendConfig(): BackendConfig {
    const { Backend, url } = this.storeConfig;
    return { backend: Backend, url, queues: [this.queue] };
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
    return measureDashboardPaint(this.storeConfig, loads);
  }

  measureCliStart(starts: number): Promise<CliStartSample[]> {
    return measureCliStart(this.storeConfig.url, starts);
  }

  prepareSchedulePasses(schedules: number): Promise<() => Promise<number>> {
    return storeIdleSchedules(this.backend, TASK_NAME, schedules);
  }

  async close(): Promise<void> {
    try {
      await this.closeProducer();
    } finally {
      await this.backend.close();
    }
  }
}
