import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  InvalidTaskError,
  MemoryBackend,
  Task,
  TaskContext,
  TaskResultStatus,
  TaskService,
  ThreadmillModule,
  defineTask,
} from '../../../lib';
import { TaskRegistry } from '../../../lib/task/task.registry';

const SendDigest = defineTask<[day: string], { sent: number }>({
  name: 'mail.sendDigest',
  queue: 'emails',
  priority: 5,
  retries: 3,
  backoff: { type: 'fixed', delayMs: 100 },
  timeoutMs: 2000,
  unique: { key: (day) => `digest:${day}` },
});

@Injectable()
class DigestTasks {
  readonly days: string[] = [];

  @Task(SendDigest, { takesContext: true, blockingMs: 500 })
  sendDigest(context: TaskContext, day: string): { sent: number } {
    this.days.push(day);
    return { sent: context.attempt };
  }
}

const queues = ['default', 'emails'];

async function app(
  providers: (new (...args: never[]) => object)[],
  options: { immediate?: boolean } = {},
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ThreadmillModule.forRoot({
        backends: { default: { backend: MemoryBackend, queues, options } },
      }),
    ],
    providers,
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('task contracts', () => {
  const opened: TestingModule[] = [];
  afterEach(async () => {
    for (const moduleRef of opened.splice(0)) await moduleRef.close();
  });

  it('checks its options where it is defined', () => {
    expect(() => defineTask({ name: 'x', priority: 101 })).toThrow(InvalidTaskError);
    expect(() => defineTask({ name: 'x', retries: -1 })).toThrow(InvalidTaskError);
    expect(() => defineTask({ name: 'bad name' })).toThrow('The task name "bad name" is invalid');
    expect(() => defineTask({} as { name: string })).toThrow(InvalidTaskError);
  });

  it('is enqueued by an app with no task providers, with every option the contract holds', async () => {
    const producer = await app([]);
    opened.push(producer);
    const tasks = producer.get(TaskService);
    const enqueued = await tasks.enqueue(SendDigest, ['2026-12-07']);
    expect(enqueued.task).toEqual({
      name: 'mail.sendDigest',
      queue: 'emails',
      priority: 5,
      runAfter: null,
      backend: 'default',
      retries: 3,
      backoff: { type: 'fixed', delayMs: 100 },
      timeoutMs: 2000,
      unique: expect.objectContaining({ key: 'digest:2026-12-07' }) as unknown,
    });
    // The key the contract derives holds: the same day gets the same task.
    const again = await tasks.task(SendDigest).enqueue('2026-12-07');
    expect(again.id).toBe(enqueued.id);
    expect(again.created).toBe(false);
    const urgent = await tasks.task(SendDigest).using({ priority: 50, key: 'other' }).enqueue('x');
    expect(urgent.task.priority).toBe(50);
  });

  it('is run by the worker that implements it, and its result typed', async () => {
    const worker = await app([DigestTasks], { immediate: true });
    opened.push(worker);
    const registry = worker.get(TaskRegistry);
    expect(registry.find('mail.sendDigest')?.options).toEqual({
      name: 'mail.sendDigest',
      queue: 'emails',
      priority: 5,
      takesContext: true,
      retries: 3,
      backoff: { type: 'fixed', delayMs: 100 },
      blockingMs: 500,
      timeoutMs: 2000,
      unique: { key: expect.any(Function) as unknown },
    });
    const enqueued = await worker.get(TaskService).enqueue(SendDigest, ['2026-12-08']);
    const final = await enqueued.wait({ timeoutMs: 5000 });
    expect(final.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(final.returnValue.sent).toBe(1);
    expect(worker.get(DigestTasks).days).toEqual(['2026-12-08']);
  });

  it('refuses at bootstrap an implementation that sets an option the contract decides', async () => {
    @Injectable()
    class Redefining {
      @Task(SendDigest, { queue: 'default', retries: 0 } as { takesContext?: false })
      sendDigest(day: string): { sent: number } {
        return { sent: day.length };
      }
    }
    await expect(app([Redefining])).rejects.toThrow(
      'Task Redefining.sendDigest implements the contract "mail.sendDigest" but sets "queue", "retries"',
    );
  });
});
