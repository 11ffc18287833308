import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';

import {
  ENQUEUE_SLICE,
  PartialEnqueueError,
  RedisBackend,
  StoreFullError,
  TaskService,
  ThreadmillModule,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';
import { startRedisServer, type RedisServerHandle } from '../../helpers/redis-server';

// A bulk past one slice is stored slice by slice, so a store that fills up
// halfway keeps the slices before and says how many: on a private
// redis-server whose maxmemory the test sets (so the alias 'default' is its own).

describe('TaskService.enqueueMany past one slice, on Redis', () => {
  let server: RedisServerHandle;
  let admin: Redis;
  let moduleRef: TestingModule;
  let tasks: TaskService;

  beforeAll(async () => {
    server = await startRedisServer(['--maxmemory-policy', 'noeviction']);
    admin = new Redis(server.url);
  });
  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: { backend: RedisBackend, url: server.url, queues: ['default', 'loud'] },
          },
        }),
      ],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
  });
  afterEach(async () => {
    await admin.config('SET', 'maxmemory', '0');
    await moduleRef.close();
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const names = (count: number): [string][] =>
    Array.from({ length: count }, (_, i): [string] => [`n${i}`]);

  it('stores a bulk of several slices whole and in order', async () => {
    const count = 2 * ENQUEUE_SLICE + 7;
    const results = await tasks.enqueueMany(GreetingTasks, 'greet', names(count));
    expect(results).toHaveLength(count);
    expect(results.every((result) => result.created)).toBe(true);
    const first = await tasks.getResult(results[0].id);
    const last = await tasks.getResult(results[count - 1].id);
    expect([first.args, last.args]).toEqual([['n0'], [`n${count - 1}`]]);
  });

  it('keeps the slices stored before the store filled up, and says how many', async () => {
    const usedMemory = async (): Promise<number> =>
      Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    const before = await usedMemory();
    await tasks.enqueueMany(GreetingTasks, 'greet', names(ENQUEUE_SLICE));
    const used = await usedMemory();
    // Room for 3/4 of a slice more: Redis checks before a script starts, so the
    // first slice runs (its command, about half a slice's size, fits) and the
    // second is refused.
    const room = Math.round(0.75 * (used - before));
    await admin.config('SET', 'maxmemory', String(used + room));
    const error: unknown = await tasks
      .enqueueMany(GreetingTasks, 'greet', names(3 * ENQUEUE_SLICE))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PartialEnqueueError);
    const partial = error as PartialEnqueueError;
    expect(partial.cause).toBeInstanceOf(StoreFullError);
    expect(partial.stored).toHaveLength(ENQUEUE_SLICE);
    expect(partial.message).toContain(`the first ${ENQUEUE_SLICE} were stored`);
    await admin.config('SET', 'maxmemory', '0');
    const lastStored = await tasks.getResult(partial.stored[ENQUEUE_SLICE - 1].id);
    expect(lastStored.args).toEqual([`n${ENQUEUE_SLICE - 1}`]);
  });

  it('throws the store error itself when the first slice is refused: nothing was stored', async () => {
    await admin.config('SET', 'maxmemory', '1');
    await expect(
      tasks.enqueueMany(GreetingTasks, 'greet', names(ENQUEUE_SLICE + 1)),
    ).rejects.toBeInstanceOf(StoreFullError);
  });
});
