import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import type { BackendConfig } from '../lib/core/backend-config.interface';
import { Task, TaskService, ThreadmillModule } from '../lib';

/**
 * The part of one build's public API the enqueue figures go through, with
 * the NestFactory of the Nest that build resolves: this tree's
 * (currentThreadmillApi), or another build's as `--against` loads it
 * (bench/against/builds.ts). Typed as this tree's: another build is checked
 * to have these when it is loaded.
 */
export interface ThreadmillApi {
  ThreadmillModule: Pick<typeof ThreadmillModule, 'forRoot'>;
  TaskService: typeof TaskService;
  Task: typeof Task;
  NestFactory: Pick<typeof NestFactory, 'createApplicationContext'>;
}

/** This tree's public API, as an app imports it from `@threadmill/nestjs`. */
export const currentThreadmillApi: ThreadmillApi = {
  ThreadmillModule,
  TaskService,
  Task,
  NestFactory,
};

/** Where the producer's backend lives and which task it enqueues. */
export interface ProducerTarget {
  alias: string;
  backend: BackendConfig;
  queue: string;
  taskName: string;
}

/**
 * The bench's no-op task as an app declares it: a provider with one `@Task`
 * method, decorated by the build's own `Task` so that build's TaskService
 * finds it. Its body never runs here (no worker in the producer's context).
 */
function benchTasksClass(api: ThreadmillApi, target: ProducerTarget) {
  class BenchTasks {
    @api.Task({ name: target.taskName, queue: target.queue })
    echo(...args: unknown[]): unknown[] {
      return args;
    }
  }
  return BenchTasks;
}

type BenchTasks = InstanceType<ReturnType<typeof benchTasksClass>>;

/** The root module of the producer's context; its imports and providers come with forRoot's. */
class BenchProducerModule {}

/**
 * Enqueues as a user's app does: through `TaskService.enqueue` and
 * `enqueueMany` of a booted Nest application context, so every call resolves
 * the task's options, checks and serializes its arguments, makes its id and
 * goes through the enqueue coalescer, as BullMQ's figures go through
 * `Queue.add` and Bee-Queue's through `createJob().save()`. Producers only:
 * the context imports ThreadmillModule and the task's provider, and runs no
 * worker. Its backend is an instance of its own on the runner's store.
 */
export class TaskServiceProducer {
  private constructor(
    private readonly app: INestApplicationContext,
    private readonly tasks: TaskService,
    private readonly taskClass: new () => BenchTasks,
  ) {}

  /** Boots the context (untimed: scenarios call it before their measured window). */
  static async boot(api: ThreadmillApi, target: ProducerTarget): Promise<TaskServiceProducer> {
    const taskClass = benchTasksClass(api, target);
    const root: DynamicModule = {
      module: BenchProducerModule,
      imports: [api.ThreadmillModule.forRoot({ backends: { [target.alias]: target.backend } })],
      providers: [taskClass],
    };
    // abortOnError off: a failed boot rejects here instead of exiting the benchmark.
    const app = await api.NestFactory.createApplicationContext(root, {
      logger: ['error', 'warn'],
      abortOnError: false,
    });
    const producer = new TaskServiceProducer(app, app.get(api.TaskService), taskClass);
    try {
      // Connected, and the build's code run once, before anything is timed.
      await producer.enqueue([]);
    } catch (error) {
      await app.close();
      throw error;
    }
    return producer;
  }

  /** `TaskService.enqueue` of the no-op task; `key`: a unique key of this call's own. */
  async enqueue(args: unknown[], key?: string): Promise<void> {
    await this.tasks.enqueue(
      this.taskClass,
      'echo',
      args,
      key === undefined ? {} : { key, unique: { mode: 'unfinished' } },
    );
  }

  /** `TaskService.enqueueMany` of the no-op task, one run per argument list. */
  async enqueueMany(argsList: unknown[][]): Promise<void> {
    await this.tasks.enqueueMany(this.taskClass, 'echo', argsList);
  }

  /** Closes the context, and with it the backend it opened. */
  close(): Promise<void> {
    return this.app.close();
  }
}
