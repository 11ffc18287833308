import { BackendRegistry, InvalidTaskError, type TaskOverrides } from '../../../lib';
import { GreetingTasks } from '../../fixtures/greeting.tasks';
import { startedEachTest } from './task.service.setup';

describe('TaskService', () => {
  const app = startedEachTest();

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
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { priority }),
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
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], overrides as TaskOverrides),
        `Task "GreetingTasks.greet": ${message}`,
      );
    });

    it('stores a per-call retry policy with the task, and none when the call sets none', async () => {
      const backoff = { type: 'fixed', delayMs: 250, jitter: false } as const;
      const retried = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
        retries: 3,
        backoff,
      });
      expect(retried.task).toMatchObject({ retries: 3, backoff });
      const plain = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect('retries' in plain.task).toBe(false);
      expect('backoff' in plain.task).toBe(false);
    });

    it('stores a per-call timeout with the task, and none when neither the call nor the task sets one', async () => {
      const limited = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
        timeoutMs: 5_000,
      });
      expect(limited.task.timeoutMs).toBe(5_000);
      const plain = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect('timeoutMs' in plain.task).toBe(false);
    });

    it.each([0, -1, 1.5, '100'])('refuses timeoutMs %p', async (timeoutMs) => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { timeoutMs: timeoutMs as number }),
        'Task "GreetingTasks.greet": timeoutMs must be a whole number of milliseconds above 0',
      );
    });

    it("refuses a timeout the backend's lease would cut short", async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { timeoutMs: 2 * 60 * 60 * 1000 }),
        'must be below the lease of backend "default"',
      );
    });

    it('refuses a queue the backend does not serve', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { queue: 'emails' }),
        'Task "GreetingTasks.greet": queue "emails" is not configured for backend "default" ' +
          '(configured: "default", "loud").',
      );
    });

    it('refuses a backend alias that is not configured', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { alias: 'elsewhere' }),
        'Task "GreetingTasks.greet": backend "elsewhere" is not configured (configured: "default", "nodefer").',
      );
    });

    it('refuses runAfter on a backend that cannot defer', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          alias: 'nodefer',
          runAfter: new Date(Date.now() + 1000),
        }),
        'Task "GreetingTasks.greet": backend "nodefer" does not support runAfter.',
      );
    });

    it('refuses a runAfter that is not a valid Date', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { runAfter: new Date('not a date') }),
        'Task "GreetingTasks.greet": runAfter Invalid Date is not a valid Date.',
      );
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          runAfter: '2030-01-01' as unknown as Date,
        }),
        'Task "GreetingTasks.greet": runAfter 2030-01-01 is not a valid Date.',
      );
    });

    it('defers by delayMs, storing the runAfter it comes to on this clock', async () => {
      const before = Date.now();
      const result = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs: 60_000 });
      const runAfter = result.task.runAfter?.getTime() ?? 0;
      expect(runAfter).toBeGreaterThanOrEqual(before + 60_000);
      expect(runAfter).toBeLessThanOrEqual(Date.now() + 60_000);
      expect((await app.tasks.getResult(result.id)).task.runAfter?.getTime()).toBe(runAfter);
      // delayMs 0 is ready at once.
      const now = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs: 0 });
      expect(now.task.runAfter).not.toBeNull();
      const backend = app.moduleRef.get(BackendRegistry).get('default');
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
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delayMs }),
        `Task "GreetingTasks.greet": ${message}; use a whole number of milliseconds from 0 to 31536000000.`,
      );
    });

    it('refuses delayMs with runAfter, and delayMs on a backend that cannot defer', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
          delayMs: 1000,
          runAfter: new Date(Date.now() + 1000),
        }),
        'Task "GreetingTasks.greet": set delayMs or runAfter, not both',
      );
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { alias: 'nodefer', delayMs: 0 }),
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
        app.tasks.enqueue(GreetingTasks, 'greet', args as unknown as [string]),
        `Task "GreetingTasks.greet": ${message}`,
      );
    });

    it('refuses a method that is not a @Task', async () => {
      await refuses(
        app.tasks.enqueue(GreetingTasks, 'helper', []),
        'GreetingTasks.helper is not a registered @Task method.',
      );
    });
  });
});
