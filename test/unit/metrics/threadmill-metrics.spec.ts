import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Registry } from 'prom-client';

import {
  BackendRegistry,
  MemoryBackend,
  MetricsNotEnabledError,
  TaskService,
  ThreadmillMetrics,
  ThreadmillModule,
  type ThreadmillModuleOptions,
} from '../../../lib';
import { PoolMetrics } from '../../../lib/metrics/pool-metrics';
import { loadPromClient, type PromClient } from '../../../lib/metrics/prom-client.loader';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

const line = (text: string, series: string): string | undefined =>
  text.split('\n').find((l) => l.startsWith(`${series} `));

describe('ThreadmillMetrics (the app process)', () => {
  const modules: TestingModule[] = [];

  async function app(metrics: ThreadmillModuleOptions['metrics']): Promise<TestingModule> {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'loud'] } },
          metrics,
        }),
      ],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    modules.push(moduleRef);
    return moduleRef;
  }

  afterEach(async () => {
    for (const moduleRef of modules.splice(0)) await moduleRef.close();
  });

  it('is off unless asked for, and says how to turn it on', async () => {
    const metrics = (await app(undefined)).get(ThreadmillMetrics);
    expect(metrics.enabled).toBe(false);
    expect(() => metrics.metrics()).toThrow(MetricsNotEnabledError);
    expect(() => metrics.metrics()).toThrow(/metrics: true/);
  });

  it('counts the tasks this process enqueued, by task and queue, and shows the store gauges', async () => {
    const moduleRef = await app(true);
    const tasks = moduleRef.get(TaskService);
    await tasks.enqueue(GreetingTasks, 'greet', ['a']);
    await tasks.enqueue(GreetingTasks, 'greet', ['b']);
    await tasks.enqueue(GreetingTasks, 'shout', ['c', 2]);
    const metrics = moduleRef.get(ThreadmillMetrics);
    expect(metrics.contentType).toBe(new Registry().contentType);
    const text = await metrics.metrics();
    const enqueued = 'threadmill_tasks_enqueued_total';
    expect(line(text, `${enqueued}{task="GreetingTasks.greet",queue="default"}`)).toMatch(/ 2$/);
    expect(line(text, `${enqueued}{task="greetings.shout",queue="loud"}`)).toMatch(/ 1$/);
    const ready = 'threadmill_queue_tasks{backend="default",queue="default",state="ready"}';
    expect(line(text, ready)).toMatch(/ 2$/);
  });

  it('joins a registry it is given, and leaves it when the app closes', async () => {
    const registry = new Registry();
    const moduleRef = await app({ registry });
    await moduleRef.get(TaskService).enqueue(GreetingTasks, 'greet', ['a']);
    expect(await registry.metrics()).toContain(
      'threadmill_tasks_enqueued_total{task="GreetingTasks.greet",queue="default"} 1',
    );
    await modules.pop()!.close();
    expect(registry.getSingleMetric('threadmill_tasks_enqueued_total')).toBeUndefined();
    // So an app started again registers them again.
    await app({ registry });
  });

  it('leaves the store gauges to a pool that holds their role on the same store', async () => {
    const moduleRef = await app(true);
    const [backend] = moduleRef.get(BackendRegistry).all();
    const pool = new PoolMetrics(loadPromClient() as PromClient, {
      backend,
      poolId: 'pool-1',
      childrenAlive: () => 1,
      logger: new Logger('test'),
    });
    expect((await pool.render()).body).toContain('threadmill_queue_tasks{');
    expect(await moduleRef.get(ThreadmillMetrics).metrics()).not.toContain(
      'threadmill_queue_tasks{',
    );
  });
});
