import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  OnTaskEvent,
  TaskEvents,
  TaskResultDoesNotExist,
  TaskResultStatus,
  TaskRunner,
  TaskService,
  TaskWaitTimeoutError,
  ThreadmillModule,
  UnknownBackendError,
  type TaskResult,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';
import { waitFor } from '../../helpers/wait-for';

@Injectable()
class GreetingListener {
  readonly heard: TaskResult[] = [];

  @OnTaskEvent('finished', { task: 'GreetingTasks.greet' })
  greeted(result: TaskResult): void {
    this.heard.push(result);
  }
}

describe('waiting for a result and hearing finished tasks (memory backend, in a module)', () => {
  let moduleRef: TestingModule;
  let tasks: TaskService;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'loud'] } },
        }),
      ],
      providers: [Greeter, GreetingTasks, GreetingListener],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  /** One worker slot's turn: lease what waits in the first non-empty queue, run it, store it. */
  async function work(): Promise<void> {
    const backend = moduleRef.get(BackendRegistry).get('default');
    const leased = await backend.leases.acquire(['default', 'loud'], {
      workerId: 'unit:1-0',
      max: 10,
      timeoutMs: 0,
    });
    const runner = moduleRef.get(TaskRunner);
    await backend.leases.acknowledge(await Promise.all(leased.map((record) => runner.run(record))));
  }

  it('waitForResult on a handle resolves with the final, typed result', async () => {
    const handle = tasks.task(GreetingTasks, 'greet');
    const enqueued = await handle.enqueue('Ada');
    const waiting = handle.waitForResult(enqueued.id, { timeoutMs: 5_000 });
    await work();
    const result = await waiting;
    expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
    const greeting: string = result.returnValue;
    expect(greeting).toBe('Hello, Ada!');
  });

  it('result.wait() holds the final state; an unknown id and a short timeout reject with typed errors', async () => {
    const enqueued = await tasks.enqueue(GreetingTasks, 'shout', ['Bo', 2]);
    const timedOut = tasks.waitForResult(enqueued.id, { timeoutMs: 10 });
    await expect(timedOut).rejects.toBeInstanceOf(TaskWaitTimeoutError);
    await expect(tasks.waitForResult('no-such-id')).rejects.toBeInstanceOf(TaskResultDoesNotExist);
    await expect(tasks.waitForResult(enqueued.id, { alias: 'nope' })).rejects.toBeInstanceOf(
      UnknownBackendError,
    );
    const waiting = enqueued.wait();
    await work();
    await expect(waiting).resolves.toBe(enqueued);
    expect(enqueued.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(enqueued.returnValue).toBe('HELLO, BO! x2');
  });

  it('@OnTaskEvent hears its task only; on(..., { allProcesses }) hears each finish once', async () => {
    const events = moduleRef.get(TaskEvents);
    const local: string[] = [];
    const everywhere: string[] = [];
    events.on('finished', (result) => void local.push(result.id));
    const subscription = events.on('finished', (result) => void everywhere.push(result.id), {
      allProcesses: true,
    });
    await subscription.ready;
    const greet = await tasks.enqueue(GreetingTasks, 'greet', ['Cy']);
    const shout = await tasks.enqueue(GreetingTasks, 'shout', ['Di', 1]);
    await work();
    await work();
    await waitFor(() => everywhere.length === 2, { what: 'both finishes heard' });
    const listener = moduleRef.get(GreetingListener);
    await waitFor(() => listener.heard.length === 1, { what: 'the greeting heard' });
    expect(listener.heard[0]).toMatchObject({ id: greet.id, status: TaskResultStatus.SUCCESSFUL });
    expect(everywhere.sort()).toEqual([greet.id, shout.id].sort());
    // The in-process listener keeps its meaning: this process ran both, once each.
    expect(local.sort()).toEqual([greet.id, shout.id].sort());
    subscription();
    const after = await tasks.enqueue(GreetingTasks, 'shout', ['Ed', 1]);
    await work();
    await tasks.waitForResult(after.id);
    expect(everywhere).not.toContain(after.id);
  });

  it('refuses allProcesses for an event the backends do not carry, naming those they do', () => {
    const events = moduleRef.get(TaskEvents);
    const on = events.on.bind(events) as (...args: unknown[]) => unknown;
    expect(() => on('retried', () => undefined, { allProcesses: true })).toThrow(
      /"retried" is not one the backends carry .* "finished", "enqueued", "started", "progressed"/,
    );
    expect(() => on('retried', () => undefined, { allProcesses: true })).toThrow(InvalidTaskError);
  });
});
