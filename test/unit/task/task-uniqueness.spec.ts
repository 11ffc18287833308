import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  InvalidTaskError,
  MemoryBackend,
  Task,
  TaskEvents,
  TaskResultStatus,
  TaskService,
  ThreadmillModule,
  type TaskOverrides,
  type TaskResult,
} from '../../../lib';

@Injectable()
class WelcomeTasks {
  readonly sent: string[] = [];

  @Task({ unique: { key: (userId: string) => `welcome:${userId}` } })
  send(userId: string): string {
    this.sent.push(userId);
    return userId;
  }

  @Task({ unique: { key: (userId: string) => `digest:${userId}`, mode: 'debounce', ttlMs: 5000 } })
  digest(userId: string, note: string): string {
    return `${userId}:${note}`;
  }

  @Task({ unique: { key: (value: unknown) => value as string } })
  keyedBy(value: unknown): unknown {
    return value;
  }

  @Task({
    unique: {
      key: () => {
        throw new Error('no user');
      },
    },
  })
  keyThrows(): void {}

  @Task()
  plain(value: string): string {
    return value;
  }
}

describe('TaskService unique keys', () => {
  let moduleRef: TestingModule;
  let tasks: TaskService;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: { backend: MemoryBackend },
            nodefer: { backend: MemoryBackend, options: { immediate: true } },
          },
        }),
      ],
      providers: [WelcomeTasks],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  describe('enqueue', () => {
    it('derives the key from the arguments, returns the holder, and says which enqueue made it', async () => {
      const enqueued: TaskResult[] = [];
      moduleRef.get(TaskEvents).on('enqueued', (result) => {
        enqueued.push(result);
      });
      const first = await tasks.task(WelcomeTasks, 'send').enqueue('42');
      const second = await tasks.task(WelcomeTasks, 'send').enqueue('42');
      const other = await tasks.task(WelcomeTasks, 'send').enqueue('43');
      expect([first.created, second.created, other.created]).toEqual([true, false, true]);
      expect(second.id).toBe(first.id);
      expect(first.key).toBe('welcome:42');
      expect(first.task.unique).toEqual({ key: 'welcome:42', mode: 'unfinished' });
      expect(enqueued.map((result) => result.id)).toEqual([first.id, other.id]);
      // What getResult reads is the task alone.
      const read = await tasks.getResult(first.id);
      expect(read.key).toBe('welcome:42');
      expect('created' in read).toBe(false);
      expect(JSON.parse(JSON.stringify(second))).toEqual(JSON.parse(JSON.stringify(read)));
    });

    it("takes the call's key over the derived one, and none for a task without one", async () => {
      const handle = tasks.task(WelcomeTasks, 'send').using({ key: 'user-42' });
      const first = await handle.enqueue('42');
      expect(first.key).toBe('user-42');
      await expect(handle.enqueue('99')).resolves.toMatchObject({ id: first.id, created: false });
      const plain = await tasks.task(WelcomeTasks, 'plain').enqueue('x');
      expect(plain).toMatchObject({ key: null, created: true });
      expect(plain.task).not.toHaveProperty('unique');
    });

    it('gives one caller key to every argument list of enqueueMany: the first makes the task', async () => {
      const results = await tasks
        .task(WelcomeTasks, 'plain')
        .using({ key: 'batch-1' })
        .enqueueMany([['a'], ['b'], ['c']]);
      expect(results.map((result) => result.created)).toEqual([true, false, false]);
      expect(new Set(results.map((result) => result.id)).size).toBe(1);
      expect(results[2].args).toEqual(['a']);
    });

    it('debounces: deferred by ttlMs, and a new enqueue replaces the arguments and moves the start', async () => {
      const before = Date.now();
      const first = await tasks.task(WelcomeTasks, 'digest').enqueue('7', 'first');
      expect(first.status).toBe(TaskResultStatus.READY);
      expect(first.task.runAfter!.getTime()).toBeGreaterThanOrEqual(before + 5000);
      const second = await tasks
        .task(WelcomeTasks, 'digest')
        .using({ unique: { ttlMs: 9000 } })
        .enqueue('7', 'second');
      expect(second).toMatchObject({ id: first.id, created: false, args: ['7', 'second'] });
      expect(second.task.runAfter!.getTime()).toBeGreaterThanOrEqual(before + 9000);
    });

    it('holds a window key past the end of a task that ran at once', async () => {
      const handle = tasks
        .task(WelcomeTasks, 'send')
        .using({ alias: 'nodefer', unique: { mode: 'window', ttlMs: 60_000 } });
      const first = await handle.enqueue('5');
      expect(first.status).toBe(TaskResultStatus.SUCCESSFUL);
      const second = await handle.enqueue('5');
      expect(second).toMatchObject({ id: first.id, created: false });
      expect(moduleRef.get(WelcomeTasks).sent).toEqual(['5']);
    });
  });

  describe('validation', () => {
    const refused = (promise: Promise<unknown>, message: RegExp) =>
      expect(promise).rejects.toThrow(
        expect.objectContaining({ message: expect.stringMatching(message) }),
      );

    it.each(['', 'has space', 'a/b', 'x'.repeat(201)])('refuses the key %j', async (key) => {
      const enqueue = tasks.task(WelcomeTasks, 'plain').using({ key }).enqueue('x');
      await expect(enqueue).rejects.toThrow(InvalidTaskError);
      await refused(enqueue, /Task "WelcomeTasks.plain": unique key .* is invalid/);
    });

    it('refuses a derived key that is not a string, or a derive function that throws', async () => {
      await refused(
        tasks.task(WelcomeTasks, 'keyedBy').enqueue(7),
        /unique.key function returned number, not a string/,
      );
      await refused(
        tasks.task(WelcomeTasks, 'keyedBy').enqueue('bad key'),
        /unique key "bad key" is invalid/,
      );
      await refused(tasks.task(WelcomeTasks, 'keyThrows').enqueue(), /threw \(no user\)/);
    });

    it.each([
      [{ mode: 'window' }, /mode 'window' needs unique.ttlMs/],
      [{ mode: 'debounce', ttlMs: 0 }, /mode 'debounce' needs unique.ttlMs/],
      [{ mode: 'window', ttlMs: 1.5 }, /needs unique.ttlMs/],
      [{ mode: 'sometimes' }, /unique.mode "sometimes" is invalid/],
    ])('refuses the unique options %j', async (unique, message) => {
      const overrides = { key: 'k', unique } as TaskOverrides;
      await refused(tasks.task(WelcomeTasks, 'plain').using(overrides).enqueue('x'), message);
    });

    it('refuses unique options without a key', async () => {
      await refused(
        tasks
          .task(WelcomeTasks, 'plain')
          .using({ unique: { mode: 'unfinished' } })
          .enqueue('x'),
        /unique options were given but no key/,
      );
    });

    it('refuses debounce on a backend that cannot defer, and with delayMs or runAfter', async () => {
      await refused(
        tasks.task(WelcomeTasks, 'digest').using({ alias: 'nodefer' }).enqueue('1', 'n'),
        /backend "nodefer" does not support deferral/,
      );
      await refused(
        tasks.task(WelcomeTasks, 'digest').using({ delayMs: 10 }).enqueue('1', 'n'),
        /drop runAfter and delayMs/,
      );
    });

    it('refuses an invalid @Task unique at bootstrap', async () => {
      @Injectable()
      class BadTasks {
        @Task({ unique: { key: (id: string) => id, mode: 'window' } })
        run(id: string): string {
          return id;
        }
      }
      const boot = async (): Promise<void> => {
        const bad = await Test.createTestingModule({
          imports: [
            ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } }),
          ],
          providers: [BadTasks],
        }).compile();
        try {
          await bad.init();
        } finally {
          await bad.close();
        }
      };
      await expect(boot()).rejects.toThrow(/Task "BadTasks.run": unique mode 'window' needs/);
    });
  });
});
