import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  OnTaskEvent,
  TaskEvents,
  TaskResultStatus,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  UnknownBackendError,
  type TaskResult,
} from '../../../lib';
import { storedProgress } from '../../../lib/core/task-progress';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TASK_EVENT_LISTENER_METADATA } from '../../../lib/core/threadmill.constants';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';
import { waitFor } from '../../helpers/wait-for';

@Injectable()
class LiveListener {
  readonly enqueued: string[] = [];
  readonly started: string[] = [];
  readonly progressed: unknown[] = [];

  @OnTaskEvent('enqueued')
  onEnqueued(result: TaskResult): void {
    this.enqueued.push(result.id);
  }

  @OnTaskEvent('started', { task: 'GreetingTasks.greet', alias: 'default' })
  onStarted(result: TaskResult): void {
    this.started.push(result.id);
  }

  @OnTaskEvent('progressed')
  onProgressed(result: TaskResult): void {
    this.progressed.push(result.progress);
  }
}

describe('hearing enqueued, started and progressed from every process (memory backend, in a module)', () => {
  let moduleRef: TestingModule;
  let tasks: TaskService;
  let events: TaskEvents;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'loud'] } },
        }),
      ],
      providers: [Greeter, GreetingTasks, LiveListener],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
    events = moduleRef.get(TaskEvents);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  const backend = () => moduleRef.get(BackendRegistry).get('default');
  const lease = (): Promise<TaskRecord[]> =>
    backend().leases.acquire(['default', 'loud'], { workerId: 'unit:1-0', max: 10, timeoutMs: 0 });

  it('@OnTaskEvent records the event and its filter, and hears only what the filter lets through', async () => {
    const metadata = Reflect.getMetadata(
      TASK_EVENT_LISTENER_METADATA,
      LiveListener.prototype.onStarted,
    ) as unknown;
    expect(metadata).toEqual({ event: 'started', task: 'GreetingTasks.greet', alias: 'default' });
    const greet = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
    const shout = await tasks.enqueue(GreetingTasks, 'shout', ['Bo', 1]);
    await lease();
    await lease();
    const listener = moduleRef.get(LiveListener);
    await waitFor(() => listener.started.length === 1 && listener.enqueued.length === 2, {
      what: 'the start of greet and both enqueues',
    });
    expect(listener.started).toEqual([greet.id]);
    expect(listener.enqueued).toEqual([greet.id, shout.id]);
  });

  it('on(event, { allProcesses }) hears each event once, not again through this process’s own emit', async () => {
    const local: string[] = [];
    const everywhere: TaskResult[] = [];
    events.on('started', (result) => void local.push(result.id));
    const subscription = events.on('started', (result) => void everywhere.push(result), {
      allProcesses: true,
      task: 'greetings.shout',
    });
    await subscription.ready;
    await tasks.enqueue(GreetingTasks, 'greet', ['Cy']);
    const shout = await tasks.enqueue(GreetingTasks, 'shout', ['Di', 1]);
    const runner = moduleRef.get(TaskRunner);
    for (const record of [...(await lease()), ...(await lease())]) await runner.run(record);
    await waitFor(() => everywhere.length === 1, { what: 'the shout start heard' });
    expect(everywhere[0]).toMatchObject({ id: shout.id, status: TaskResultStatus.RUNNING });
    // The runner emitted both starts in this process: the in-process listener alone heard them.
    expect(local).toHaveLength(2);
    subscription();
  });

  it('hands progressed listeners the result with the progress that event stored', async () => {
    const heard: unknown[] = [];
    const subscription = events.on('progressed', (result) => void heard.push(result.progress), {
      allProcesses: true,
    });
    await subscription.ready;
    await tasks.enqueue(GreetingTasks, 'greet', ['Ed']);
    const [running] = await lease();
    await backend().leases.storeProgress([
      { record: running, stored: storedProgress(1, JSON.stringify({ step: 1 })) },
    ]);
    await backend().leases.storeProgress([
      { record: running, stored: storedProgress(1, JSON.stringify({ step: 2 })) },
    ]);
    await waitFor(() => heard.length === 2, { what: 'both progress reports heard' });
    expect(heard).toEqual([{ step: 1 }, { step: 2 }]);
    expect(moduleRef.get(LiveListener).progressed).toEqual([{ step: 1 }, { step: 2 }]);
    subscription();
  });

  it('rejects ready for an unknown backend, and refuses allProcesses without the module', async () => {
    const subscription = events.on('enqueued', () => undefined, {
      allProcesses: true,
      alias: 'nope',
    });
    await expect(subscription.ready).rejects.toBeInstanceOf(UnknownBackendError);
    const byHand = new TaskEvents();
    expect(() => byHand.on('progressed', () => undefined, { allProcesses: true })).toThrow(
      InvalidTaskError,
    );
    expect(() => byHand.on('progressed', () => undefined, { allProcesses: true })).toThrow(
      /hear events from every process/,
    );
  });
});
