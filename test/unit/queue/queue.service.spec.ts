import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  MemoryBackend,
  QueueService,
  TaskService,
  ThreadmillModule,
  UnknownBackendError,
  UnknownQueueError,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

describe('QueueService', () => {
  let moduleRef: TestingModule;
  let queues: QueueService;
  let tasks: TaskService;
  let backends: BackendRegistry;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: { backend: MemoryBackend, queues: ['default', 'loud'] },
            other: {
              backend: MemoryBackend,
              queues: ['default', { name: 'reports', concurrency: 2 }],
            },
          },
        }),
      ],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    queues = moduleRef.get(QueueService);
    tasks = moduleRef.get(TaskService);
    backends = moduleRef.get(BackendRegistry);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  const take = (alias: string, queue: string) =>
    backends.get(alias).leases.acquire([queue], { workerId: 'host:1-0', timeoutMs: 0 });

  it('lists every queue in configured order with its counts and state', async () => {
    await tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2]);
    await tasks.enqueue(GreetingTasks, 'shout', ['Grace', 1]);
    await take('default', 'loud');
    await queues.pause('loud');
    await expect(queues.list()).resolves.toEqual([
      {
        queue: 'default',
        alias: 'default',
        backend: 'default',
        counts: { ready: 0, running: 0, deferred: 0, successful: 0, failed: 0, cancelled: 0 },
        state: { paused: false, limits: null },
      },
      {
        queue: 'loud',
        alias: 'default',
        backend: 'default',
        counts: { ready: 1, running: 1, deferred: 0, successful: 0, failed: 0, cancelled: 0 },
        state: { paused: true, limits: null },
      },
    ]);
  });

  it('pauses a queue of the named backend only, and resumes it', async () => {
    await queues.pause('default', { alias: 'other' });
    await expect(queues.state('default', { alias: 'other' })).resolves.toEqual({
      paused: true,
      limits: null,
    });
    await expect(queues.state('default')).resolves.toEqual({ paused: false, limits: null });
    expect((await queues.list({ alias: 'other' })).map((q) => [q.queue, q.state])).toEqual([
      ['default', { paused: true, limits: null }],
      ['reports', { paused: false, limits: { concurrency: 2 } }],
    ]);
    await queues.resume('default', { alias: 'other' });
    await expect(queues.state('default', { alias: 'other' })).resolves.toEqual({
      paused: false,
      limits: null,
    });
  });

  it('reads the deprecated option backend as alias, with a deprecation warning once', async () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await queues.pause('reports', { backend: 'other' });
      await queues.resume('reports', { backend: 'other' });
      await queues.pause('reports', { backend: 'other' });
      expect(emitWarning.mock.calls).toEqual([
        [
          'QueueService: the option "backend" is now named "alias" (same value); "backend" is read until 0.5.0.',
          { type: 'DeprecationWarning', code: 'THREADMILL_BACKEND_OPTION' },
        ],
      ]);
    } finally {
      emitWarning.mockRestore();
    }
    await expect(queues.state('reports', { alias: 'other' })).resolves.toMatchObject({
      paused: true,
    });
  });

  it('refuses alias and backend naming different backends', async () => {
    await expect(queues.pause('default', { alias: 'default', backend: 'other' })).rejects.toThrow(
      new UnknownBackendError(
        'QueueService sets alias "default" and backend "other", its deprecated name: keep alias alone.',
      ),
    );
    await expect(queues.state('default', { alias: 'other' })).resolves.toMatchObject({
      paused: false,
    });
  });

  it('sets limits at run time over the configured ones, and lifts them with null or {}', async () => {
    const other = { alias: 'other' };
    await queues.setLimits('reports', { rateLimit: { max: 10, perMs: 1000 } }, other);
    await expect(queues.state('reports', other)).resolves.toEqual({
      paused: false,
      limits: { rateLimit: { max: 10, perMs: 1000 } },
    });
    await queues.setLimits('loud', { concurrency: 1 });
    await tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2]);
    await tasks.enqueue(GreetingTasks, 'shout', ['Grace', 1]);
    await expect(take('default', 'loud')).resolves.toHaveLength(1);
    await expect(take('default', 'loud')).resolves.toEqual([]);
    await queues.setLimits('loud', {});
    await expect(take('default', 'loud')).resolves.toHaveLength(1);
    await queues.setLimits('reports', null, other);
    expect((await queues.list(other)).map((q) => q.state.limits)).toEqual([null, null]);
    await expect(queues.setLimits('reports', { concurrency: 1 })).rejects.toThrow(
      UnknownQueueError,
    );
  });

  it('stops leasing a paused queue, and leases it again once resumed', async () => {
    const shout = await tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2]);
    await queues.pause('loud');
    await expect(take('default', 'loud')).resolves.toEqual([]);
    await queues.resume('loud');
    expect((await take('default', 'loud')).map((r) => r.id)).toEqual([shout.id]);
  });

  it('refuses an unknown queue with a message that lists the configured ones', async () => {
    const error = await queues.pause('lound').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownQueueError);
    expect((error as Error).message).toBe(
      'Threadmill backend "default" has no queue "lound" (configured: "default", "loud"). ' +
        "Name one of those, or add it to the backend's queues.",
    );
    await expect(queues.resume('reports')).rejects.toThrow(UnknownQueueError);
    await expect(queues.state('reports')).rejects.toThrow(UnknownQueueError);
  });

  it('refuses an unknown backend alias', async () => {
    await expect(queues.pause('default', { alias: 'nope' })).rejects.toThrow(UnknownBackendError);
    await expect(queues.list({ alias: 'nope' })).rejects.toThrow(/"default", "other"/);
  });
});
