import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  TaskAlreadyExistsError,
  TaskEvents,
  TaskResultDoesNotExist,
  TaskResultStatus,
  TaskService,
  UnknownBackendError,
  type TaskResult,
} from '../../../lib';
import { GreetingTasks } from '../../fixtures/greeting.tasks';
import { greetingModule, startedEachTest } from './task.service.setup';

describe('TaskService', () => {
  const app = startedEachTest();

  describe('enqueue', () => {
    it('stores a READY task with the resolved options and returns its result', async () => {
      const result = await app.tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2]);
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
      const stored = await app.tasks.getResult(result.id);
      expect(stored.toRecord()).toEqual(result.toRecord());
    });

    it('applies per-call overrides', async () => {
      const runAfter = new Date(Date.now() + 60_000);
      const result = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
        priority: -3,
        queue: 'loud',
        runAfter,
      });
      expect(result.task).toMatchObject({ priority: -3, queue: 'loud', runAfter });
    });

    it('goes through a handle with using(), which leaves the original handle alone', async () => {
      const handle = app.tasks.task(GreetingTasks, 'greet');
      const urgent = handle.using({ priority: 50 }).using({ queue: 'loud' });
      const result = await urgent.enqueue('Ada');
      expect(result.task).toMatchObject({ priority: 50, queue: 'loud' });
      expect((await handle.enqueue('Bob')).task).toMatchObject({ priority: 0, queue: 'default' });
      const again = await urgent.getResult(result.id);
      expect(again.id).toBe(result.id);
    });

    it('announces each enqueued task', async () => {
      const seen: TaskResult[] = [];
      app.moduleRef.get(TaskEvents).on('enqueued', (result) => {
        seen.push(result);
      });
      const result = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect(seen.map((r) => r.id)).toEqual([result.id]);
    });
  });

  describe('a caller-chosen id', () => {
    it("is the task's id, and a repeat is refused with the task stored under it", async () => {
      const handle = app.tasks.task(GreetingTasks, 'greet').using({ id: 'welcome:user-7' });
      const result = await handle.enqueue('Ada');
      expect(result.id).toBe('welcome:user-7');
      const repeat = await app.tasks
        .enqueue(GreetingTasks, 'greet', ['Bob'], { id: 'welcome:user-7' })
        .catch((e: unknown) => e);
      expect(repeat).toBeInstanceOf(TaskAlreadyExistsError);
      const { existing } = repeat as TaskAlreadyExistsError;
      expect(existing.id).toBe('welcome:user-7');
      expect(existing.args).toEqual(['Ada']);
      expect((await app.tasks.getResult('welcome:user-7')).args).toEqual(['Ada']);
    });

    it.each(['', 'has space', 'a/b', 'curly{', 'é', 'x'.repeat(201), 42])(
      'refuses the id %j, naming the task',
      async (id) => {
        await expect(
          app.tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { id: id as string }),
        ).rejects.toThrow(/Task "GreetingTasks.greet": id .* is invalid/);
      },
    );

    it('names one task: refused for a bulk of more than one, accepted for one', async () => {
      await expect(
        app.tasks.enqueueMany(GreetingTasks, 'greet', [['a'], ['b']], { id: 'batch-1' }),
      ).rejects.toThrow(/an id names one task, but this call enqueues 2/);
      const [one] = await app.tasks.enqueueMany(GreetingTasks, 'greet', [['a']], { id: 'batch-1' });
      expect(one.id).toBe('batch-1');
    });
  });

  describe('enqueueMany', () => {
    it('stores every argument list in order', async () => {
      const results = await app.tasks.enqueueMany(GreetingTasks, 'greet', [['a'], ['b'], ['c']]);
      expect(results.map((r) => r.args)).toEqual([['a'], ['b'], ['c']]);
      expect(new Set(results.map((r) => r.id)).size).toBe(3);
    });

    it('stores none when one argument list is invalid', async () => {
      const backend = app.moduleRef.get(BackendRegistry).get('default');
      const bad: [string][] = [['a'], [undefined as unknown as string]];
      await expect(app.tasks.enqueueMany(GreetingTasks, 'greet', bad)).rejects.toThrow(
        InvalidTaskError,
      );
      await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
    });
  });

  describe('enqueueByName', () => {
    it('enqueues a task known only by its stable name, with overrides', async () => {
      const [result] = await app.tasks.enqueueByName('greetings.shout', [['Ada', 2]], {
        priority: 7,
      });
      expect(result.task).toMatchObject({ name: 'greetings.shout', queue: 'loud', priority: 7 });
      expect((await app.tasks.getResult(result.id)).args).toEqual(['Ada', 2]);
    });

    it('enqueues a name this app does not register, with the overrides alone', async () => {
      const [plain] = await app.tasks.enqueueByName('reports.build', [['2026-12']]);
      expect(plain.task).toEqual({
        name: 'reports.build',
        queue: 'default',
        priority: 0,
        runAfter: null,
        backend: 'default',
      });
      const [loud] = await app.tasks.enqueueByName('reports.build', [[]], {
        queue: 'loud',
        retries: 2,
      });
      expect(loud.task).toMatchObject({ queue: 'loud', retries: 2 });
      expect((await app.tasks.getResult(plain.id)).args).toEqual(['2026-12']);
    });

    it('checks an unregistered name and its queue against the configured ones', async () => {
      await expect(
        app.tasks.enqueueByName('reports.build', [[]], { queue: 'slow' }),
      ).rejects.toThrow(
        'Task "reports.build": queue "slow" is not configured for backend "default"',
      );
      await expect(app.tasks.enqueueByName('bad name', [[]])).rejects.toThrow(InvalidTaskError);
    });

    it('validates arguments at run time', async () => {
      await expect(app.tasks.enqueueByName('greetings.shout', [[() => 1]])).rejects.toThrow(
        /Task "greetings.shout": args\[0\] is a function/,
      );
    });
  });

  describe('getResult', () => {
    it('throws TaskResultDoesNotExist for an unknown id', async () => {
      await expect(app.tasks.getResult('nope')).rejects.toThrow(TaskResultDoesNotExist);
      await expect(app.tasks.getResult('nope')).rejects.toThrow(
        'No task result with id "nope" exists on backend "default"',
      );
    });

    it('throws UnknownBackendError for an alias that is not configured', async () => {
      await expect(app.tasks.getResult('x', 'elsewhere')).rejects.toThrow(UnknownBackendError);
    });
  });

  describe('cancel', () => {
    it('cancels a waiting run through the service and through a handle on its backend', async () => {
      const first = await app.tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      await expect(app.tasks.cancel(first.id)).resolves.toMatchObject({
        outcome: 'cancelled',
        result: { status: TaskResultStatus.CANCELLED },
      });
      const handle = app.tasks.task(GreetingTasks, 'greet').using({ alias: 'nodefer' });
      const queued = await app.tasks.task(GreetingTasks, 'greet').enqueue('Grace');
      // The handle's backend holds no such task: the cancel goes there, not to the default.
      await expect(handle.cancel(queued.id)).rejects.toThrow(TaskResultDoesNotExist);
      const { outcome, result } = await app.tasks.task(GreetingTasks, 'greet').cancel(queued.id);
      expect(outcome).toBe('cancelled');
      expect(result.status).toBe(TaskResultStatus.CANCELLED);
      await expect(app.tasks.cancel(queued.id, { alias: 'elsewhere' })).rejects.toThrow(
        UnknownBackendError,
      );
    });
  });

  describe('with one backend configured under another alias', () => {
    it('enqueues a task that names no backend there, and reads its result there', async () => {
      const single = await greetingModule({
        main: { backend: MemoryBackend, queues: ['default', 'loud'] },
      });
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
