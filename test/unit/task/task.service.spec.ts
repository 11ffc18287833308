import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  TaskAlreadyExistsError,
  TaskEvents,
  TaskResultDoesNotExist,
  TaskResultStatus,
  TaskService,
  ThreadmillModule,
  UnknownBackendError,
  type TaskOverrides,
  type TaskResult,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

describe('TaskService', () => {
  let moduleRef: TestingModule;
  let tasks: TaskService;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: { backend: MemoryBackend, queues: ['default', 'loud'] },
            nodefer: { backend: MemoryBackend, options: { immediate: true } },
          },
        }),
      ],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  describe('enqueue', () => {
    it('stores a READY task with the resolved options and returns its result', async () => {
      const result = await tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2]);
      expect(result.status).toBe(TaskResultStatus.READY);
      expect(result.task).toEqual({
        name: 'greetings.shout',
        queue: 'loud',
        priority: 10,
        runAfter: null,
        backend: 'default',
      });
      expect(result.args).toEqual(['Ada', 2]);
      expect(result.attempts).toBe(0);
      const stored = await tasks.getResult(result.id);
      expect(stored.toRecord()).toEqual(result.toRecord());
    });

    it('applies per-call overrides', async () => {
      const runAfter = new Date(Date.now() + 60_000);
      const result = await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
        priority: -3,
        queue: 'loud',
        runAfter,
      });
      expect(result.task).toMatchObject({ priority: -3, queue: 'loud', runAfter });
    });

    it('goes through a handle with using(), which leaves the original handle alone', async () => {
      const handle = tasks.task(GreetingTasks, 'greet');
      const urgent = handle.using({ priority: 50 }).using({ queue: 'loud' });
      const result = await urgent.enqueue('Ada');
      expect(result.task).toMatchObject({ priority: 50, queue: 'loud' });
      expect((await handle.enqueue('Bob')).task).toMatchObject({ priority: 0, queue: 'default' });
      const again = await urgent.getResult(result.id);
      expect(again.id).toBe(result.id);
    });

    it('announces each enqueued task', async () => {
      const seen: TaskResult[] = [];
      moduleRef.get(TaskEvents).on('enqueued', (result) => {
        seen.push(result);
      });
      const result = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect(seen.map((r) => r.id)).toEqual([result.id]);
    });
  });

  describe('a caller-chosen id', () => {
    it("is the task's id, and a repeat is refused with the task stored under it", async () => {
      const handle = tasks.task(GreetingTasks, 'greet').using({ id: 'welcome:user-7' });
      const result = await handle.enqueue('Ada');
      expect(result.id).toBe('welcome:user-7');
      const repeat = await tasks
        .enqueue(GreetingTasks, 'greet', ['Bob'], { id: 'welcome:user-7' })
        .catch((e: unknown) => e);
      expect(repeat).toBeInstanceOf(TaskAlreadyExistsError);
      const { existing } = repeat as TaskAlreadyExistsError;
      expect(existing.id).toBe('welcome:user-7');
      expect(existing.args).toEqual(['Ada']);
      expect((await tasks.getResult('welcome:user-7')).args).toEqual(['Ada']);
    });

    it.each(['', 'has space', 'a/b', 'curly{', 'é', 'x'.repeat(201), 42])(
      'refuses the id %j, naming the task',
      async (id) => {
        await expect(
          tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { id: id as string }),
        ).rejects.toThrow(/Task "GreetingTasks.greet": id .* is invalid/);
      },
    );

    it('names one task: refused for a bulk of more than one, accepted for one', async () => {
      await expect(
        tasks.enqueueMany(GreetingTasks, 'greet', [['a'], ['b']], { id: 'batch-1' }),
      ).rejects.toThrow(/an id names one task, but this call enqueues 2/);
      const [one] = await tasks.enqueueMany(GreetingTasks, 'greet', [['a']], { id: 'batch-1' });
      expect(one.id).toBe('batch-1');
    });
  });

  describe('enqueueMany', () => {
    it('stores every argument list in order', async () => {
      const results = await tasks.enqueueMany(GreetingTasks, 'greet', [['a'], ['b'], ['c']]);
      expect(results.map((r) => r.args)).toEqual([['a'], ['b'], ['c']]);
      expect(new Set(results.map((r) => r.id)).size).toBe(3);
    });

    it('stores none when one argument list is invalid', async () => {
      const backend = moduleRef.get(BackendRegistry).get('default');
      const bad: [string][] = [['a'], [undefined as unknown as string]];
      await expect(tasks.enqueueMany(GreetingTasks, 'greet', bad)).rejects.toThrow(
        InvalidTaskError,
      );
      await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
    });
  });

  describe('enqueueByName', () => {
    it('enqueues a task known only by its stable name, with overrides', async () => {
      const [result] = await tasks.enqueueByName('greetings.shout', [['Ada', 2]], {
        priority: 7,
      });
      expect(result.task).toMatchObject({ name: 'greetings.shout', queue: 'loud', priority: 7 });
      expect((await tasks.getResult(result.id)).args).toEqual(['Ada', 2]);
    });

    it('enqueues a name this app does not register, with the overrides alone', async () => {
      const [plain] = await tasks.enqueueByName('reports.build', [['2026-12']]);
      expect(plain.task).toEqual({
        name: 'reports.build',
        queue: 'default',
        priority: 0,
        runAfter: null,
        backend: 'default',
      });
      const [loud] = await tasks.enqueueByName('reports.build', [[]], {
        queue: 'loud',
        retries: 2,
      });
      expect(loud.task).toMatchObject({ queue: 'loud', retries: 2 });
      expect((await tasks.getResult(plain.id)).args).toEqual(['2026-12']);
    });

    it('checks an unregistered name and its queue against the configured ones', async () => {
      await expect(tasks.enqueueByName('reports.build', [[]], { queue: 'slow' })).rejects.toThrow(
        'Task "reports.build": queue "slow" is not configured for backend "default"',
      );
      await expect(tasks.enqueueByName('bad name', [[]])).rejects.toThrow(InvalidTaskError);
    });

    it('validates arguments at run time', async () => {
      await expect(tasks.enqueueByName('greetings.shout', [[() => 1]])).rejects.toThrow(
        /Task "greetings.shout": args\[0\] is a function/,
      );
    });
  });

  describe('validation', () => {
    const refuses = async (promise: Promise<unknown>, message: string): Promise<void> => {
      await expect(promise).rejects.toThrow(InvalidTaskError);
      await expect(promise).rejects.toThrow(message);
    };

    it.each([
      [101, 'priority 101 is invalid'],
      [-101, 'priority -101 is invalid'],
      [1.5, 'priority 1.5 is invalid'],
      [Number.NaN, 'priority NaN is invalid'],
      [Number.POSITIVE_INFINITY, 'priority Infinity is invalid'],
    ])('refuses priority %p, naming the task', async (priority, message) => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { priority }),
        `Task "GreetingTasks.greet": ${message}; use a whole number from -100 to 100.`,
      );
    });

    it.each([
      [{ retries: -1 }, 'retries -1 is invalid; use a whole number from 0 to 100'],
      [{ retries: 1.5 }, 'retries 1.5 is invalid'],
      [{ retries: 101 }, 'retries 101 is invalid'],
      [{ retries: 2, backoff: { type: 'linear', delayMs: 10 } }, 'backoff type linear is invalid'],
      [{ retries: 2, backoff: { type: 'fixed', delayMs: -5 } }, 'backoff delayMs -5 is invalid'],
      [
        { retries: 2, backoff: { type: 'exponential', delayMs: 100, maxDelayMs: 50 } },
        'backoff maxDelayMs 50 is invalid',
      ],
      [
        { retries: 2, backoff: { type: 'fixed', delayMs: 1, factor: 3 } },
        'backoff has unknown option(s) factor',
      ],
    ])('refuses the retry policy %j, naming the task', async (overrides, message) => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], overrides as TaskOverrides),
        `Task "GreetingTasks.greet": ${message}`,
      );
    });

    it('stores a per-call retry policy with the task, and none when the call sets none', async () => {
      const backoff = { type: 'fixed', delayMs: 250, jitter: false } as const;
      const retried = await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { retries: 3, backoff });
      expect(retried.task).toMatchObject({ retries: 3, backoff });
      const plain = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect('retries' in plain.task).toBe(false);
      expect('backoff' in plain.task).toBe(false);
    });

    it('stores a per-call timeout with the task, and none when neither the call nor the task sets one', async () => {
      const limited = await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { timeoutMs: 5_000 });
      expect(limited.task.timeoutMs).toBe(5_000);
      const plain = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect('timeoutMs' in plain.task).toBe(false);
    });

    it.each([0, -1, 1.5, '100'])('refuses timeoutMs %p', async (timeoutMs) => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { timeoutMs: timeoutMs as number }),
        'Task "GreetingTasks.greet": timeoutMs must be a whole number of milliseconds above 0',
      );
    });

    it("refuses a timeout the backend's lease would cut short", async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { timeoutMs: 2 * 60 * 60 * 1000 }),
        'must be below the lease of backend "default"',
      );
    });

    it('refuses a queue the backend does not serve', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { queue: 'emails' }),
        'Task "GreetingTasks.greet": queue "emails" is not configured for backend "default" ' +
          '(configured: "default", "loud").',
      );
    });

    it('refuses a backend alias that is not configured', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { alias: 'elsewhere' }),
        'Task "GreetingTasks.greet": backend "elsewhere" is not configured (configured: "default", "nodefer").',
      );
    });

    it('refuses runAfter on a backend that cannot defer', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          alias: 'nodefer',
          runAfter: new Date(Date.now() + 1000),
        }),
        'Task "GreetingTasks.greet": backend "nodefer" does not support runAfter.',
      );
    });

    it('refuses a runAfter that is not a valid Date', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { runAfter: new Date('not a date') }),
        'Task "GreetingTasks.greet": runAfter Invalid Date is not a valid Date.',
      );
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          runAfter: '2030-01-01' as unknown as Date,
        }),
        'Task "GreetingTasks.greet": runAfter 2030-01-01 is not a valid Date.',
      );
    });

    it('defers by delayMs, storing the runAfter it comes to on this clock', async () => {
      const before = Date.now();
      const result = await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs: 60_000 });
      const runAfter = result.task.runAfter?.getTime() ?? 0;
      expect(runAfter).toBeGreaterThanOrEqual(before + 60_000);
      expect(runAfter).toBeLessThanOrEqual(Date.now() + 60_000);
      expect((await tasks.getResult(result.id)).task.runAfter?.getTime()).toBe(runAfter);
      // delayMs 0 is ready at once.
      const now = await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs: 0 });
      expect(now.task.runAfter).not.toBeNull();
      const backend = moduleRef.get(BackendRegistry).get('default');
      expect((await backend.reads.peek('default', 'ready', 10)).map((r) => r.id)).toEqual([now.id]);
    });

    it.each([
      [-1, 'delayMs -1 is invalid'],
      [1.5, 'delayMs 1.5 is invalid'],
      [365 * 24 * 3600 * 1000 + 1, 'delayMs 31536000001 is invalid'],
      ['5' as unknown as number, 'delayMs "5" is invalid'],
      [Number.NaN, 'delayMs NaN is invalid'],
    ])('refuses delayMs %p', async (delayMs, message) => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs }),
        `Task "GreetingTasks.greet": ${message}; use a whole number of milliseconds from 0 to 31536000000.`,
      );
    });

    it('refuses delayMs with runAfter, and delayMs on a backend that cannot defer', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          delayMs: 1000,
          runAfter: new Date(Date.now() + 1000),
        }),
        'Task "GreetingTasks.greet": set delayMs or runAfter, not both',
      );
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { alias: 'nodefer', delayMs: 0 }),
        'Task "GreetingTasks.greet": backend "nodefer" does not support delayMs.',
      );
    });

    it.each([
      ['a Date', [new Date(0)], 'args[0] is a Date'],
      ['undefined', [undefined], 'args[0] is undefined'],
      ['a function', [() => 'x'], 'args[0] is a function'],
      ['a class instance', [new Map()], 'args[0] is an instance of Map'],
    ])('refuses %s as an argument', async (_label, args, message) => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'greet', args as unknown as [string]),
        `Task "GreetingTasks.greet": ${message}`,
      );
    });

    it('refuses a method that is not a @Task', async () => {
      await refuses(
        tasks.enqueue(GreetingTasks, 'helper', []),
        'GreetingTasks.helper is not a registered @Task method.',
      );
    });
  });

  describe('getResult', () => {
    it('throws TaskResultDoesNotExist for an unknown id', async () => {
      await expect(tasks.getResult('nope')).rejects.toThrow(TaskResultDoesNotExist);
      await expect(tasks.getResult('nope')).rejects.toThrow(
        'No task result with id "nope" exists on backend "default"',
      );
    });

    it('throws UnknownBackendError for an alias that is not configured', async () => {
      await expect(tasks.getResult('x', 'elsewhere')).rejects.toThrow(UnknownBackendError);
    });
  });

  describe('cancel', () => {
    it('cancels a waiting run through the service and through a handle on its backend', async () => {
      const first = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      await expect(tasks.cancel(first.id)).resolves.toMatchObject({
        outcome: 'cancelled',
        result: { status: TaskResultStatus.CANCELLED },
      });
      const handle = tasks.task(GreetingTasks, 'greet').using({ alias: 'nodefer' });
      const queued = await tasks.task(GreetingTasks, 'greet').enqueue('Grace');
      // The handle's backend holds no such task: the cancel goes there, not to the default.
      await expect(handle.cancel(queued.id)).rejects.toThrow(TaskResultDoesNotExist);
      const { outcome, result } = await tasks.task(GreetingTasks, 'greet').cancel(queued.id);
      expect(outcome).toBe('cancelled');
      expect(result.status).toBe(TaskResultStatus.CANCELLED);
      await expect(tasks.cancel(queued.id, { alias: 'elsewhere' })).rejects.toThrow(
        UnknownBackendError,
      );
    });
  });

  describe('with one backend configured under another alias', () => {
    it('enqueues a task that names no backend there, and reads its result there', async () => {
      const single = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: { main: { backend: MemoryBackend, queues: ['default', 'loud'] } },
          }),
        ],
        providers: [Greeter, GreetingTasks],
      }).compile();
      await single.init();
      try {
        const service = single.get(TaskService);
        const result = await service.enqueue(GreetingTasks, 'greet', ['Ada']);
        expect(result.task.backend).toBe('main');
        expect((await service.getResult(result.id)).id).toBe(result.id);
        expect(single.get(BackendRegistry).defaultAlias).toBe('main');
      } finally {
        await single.close();
      }
    });
  });
});
