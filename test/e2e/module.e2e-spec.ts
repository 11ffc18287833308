import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';

// The public API only: what users import.
import {
  BackendUnavailableError,
  InjectBackend,
  MemoryBackend,
  TaskEvents,
  TaskResultStatus,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  getBackendToken,
  type TaskBackend,
} from '../../lib';
import { Greeter, GreetingTasks } from '../fixtures/greeting.tasks';

/** A user-side provider that enqueues, as an HTTP controller or service would. */
@Injectable()
class Signup {
  constructor(private readonly tasks: TaskService) {}

  async register(name: string) {
    return this.tasks.enqueue(GreetingTasks, 'greet', [name]);
  }
}

/** Stands in for one worker slot: acquire, run, acknowledge. */
@Injectable()
class OneShotWorker {
  constructor(
    @InjectBackend() private readonly backend: TaskBackend,
    private readonly runner: TaskRunner,
  ) {}

  async work(): Promise<void> {
    const acquired = await this.backend.leases.acquire(['default'], {
      workerId: 'e2e:1-0',
      timeoutMs: 5000,
    });
    const finished = await Promise.all(acquired.map((record) => this.runner.run(record)));
    await this.backend.leases.acknowledge(finished);
  }
}

async function start(root: new () => unknown): Promise<INestApplication> {
  const app = await NestFactory.create(root, { logger: false });
  await app.init();
  return app;
}

describe('ThreadmillModule in an application (e2e)', () => {
  it('enqueues a task whose provider injects another, runs it and reads the result back', async () => {
    @Module({
      imports: [
        ThreadmillModule.forRoot({
          isGlobal: true,
          backends: { default: { backend: MemoryBackend, queues: ['default', 'loud'] } },
        }),
      ],
      providers: [Greeter, GreetingTasks, Signup, OneShotWorker],
    })
    class AppModule {}

    const app = await start(AppModule);
    try {
      const worker = app.get(OneShotWorker).work();
      const enqueued = await app.get(Signup).register('Ada');
      expect(enqueued.status).toBe(TaskResultStatus.READY);
      await worker;

      const result = await enqueued.refresh();
      expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
      expect(result.returnValue).toBe('Hello, Ada!');
      expect(result.workerIds).toEqual(['e2e:1-0']);
      expect(result.attempts).toBe(1);
      expect(result.finishedAt).toBeInstanceOf(Date);

      const read = await app.get(TaskService).getResult<string>(enqueued.id);
      expect(read.returnValue).toBe('Hello, Ada!');
      expect(app.get(Greeter).greeted).toEqual(['Ada']);
    } finally {
      await app.close();
    }
  });

  it('runs the task at enqueue with an immediate backend, announcing each step in order', async () => {
    @Module({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: {
              backend: MemoryBackend,
              queues: ['default', 'loud'],
              options: { immediate: true },
            },
          },
        }),
      ],
      providers: [Greeter, GreetingTasks],
    })
    class AppModule {}

    const app = await start(AppModule);
    try {
      const events = app.get(TaskEvents);
      const seen: string[] = [];
      for (const event of ['enqueued', 'started', 'finished'] as const) {
        events.on(event, (result) => {
          seen.push(`${event}:${result.task.name}`);
        });
      }
      const tasks = app.get(TaskService);
      const result = await tasks.task(GreetingTasks, 'shout').enqueue('Bob', 2);
      expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
      expect(result.returnValue).toBe('HELLO, BOB! x2');
      expect(seen).toEqual([
        'enqueued:greetings.shout',
        'started:greetings.shout',
        'finished:greetings.shout',
      ]);

      const failed = await tasks.enqueue(GreetingTasks, 'failSync', []);
      expect(failed.status).toBe(TaskResultStatus.FAILED);
      expect(failed.errors[0].className).toBe('GreetingFailure');
      expect(() => failed.returnValue).toThrow('has no return value: its status is FAILED');
    } finally {
      await app.close();
    }
  });

  it('configures backends with forRootAsync and ConfigService, and closes them on app.close()', async () => {
    @Module({
      imports: [
        ThreadmillModule.forRootAsync({
          isGlobal: true,
          imports: [
            ConfigModule.forRoot({
              ignoreEnvFile: true,
              load: [() => ({ THREADMILL_QUEUES: 'default,loud' })],
            }),
          ],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({
            backends: {
              default: {
                backend: MemoryBackend,
                queues: config.getOrThrow<string>('THREADMILL_QUEUES').split(','),
              },
            },
          }),
        }),
      ],
      providers: [Greeter, GreetingTasks, OneShotWorker],
    })
    class AppModule {}

    const app = await start(AppModule);
    const backend = app.get<TaskBackend>(getBackendToken('default'));
    expect(backend.queues).toEqual(['default', 'loud']);
    const result = await app.get(TaskService).enqueue(GreetingTasks, 'shout', ['Cy', 1]);
    expect(result.task.queue).toBe('loud');
    await app.close();
    await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
  });
});
