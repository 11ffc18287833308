import { Test, type TestingModule } from '@nestjs/testing';

import {
  MemoryBackend,
  TaskEvents,
  TaskResultStatus,
  TaskRunner,
  ThreadmillModule,
  type TaskRecord,
} from '../../../lib';
import { EventStream } from '../../../lib/core/event-stream';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';
import { runningRecord } from '../../helpers/ready-record';

/** A RUNNING record as a worker would hand it over after acquire. */
const running = (name: string, args: unknown[]): TaskRecord =>
  runningRecord('default', { name, args });

describe('TaskRunner', () => {
  let moduleRef: TestingModule;
  let runner: TaskRunner;
  let greeter: Greeter;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    runner = moduleRef.get(TaskRunner);
    greeter = moduleRef.get(Greeter);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  it('runs an async task with its injected dependencies and records the return value', async () => {
    const record = running('GreetingTasks.greet', ['Ada']);
    const finished = await runner.run(record);
    expect(finished).toEqual({
      ...record,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: expect.any(Date),
      returnValue: 'Hello, Ada!',
    });
    expect(greeter.greeted).toEqual(['Ada']);
  });

  it('runs a sync task', async () => {
    const finished = await runner.run(running('greetings.shout', ['Bob', 3]));
    expect(finished.returnValue).toBe('HELLO, BOB! x3');
  });

  it('records undefined as null', async () => {
    const finished = await runner.run(running('GreetingTasks.nothing', []));
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(finished.returnValue).toBeNull();
  });

  it('passes a TaskContext over the record first when the task takes one', async () => {
    const record = running('GreetingTasks.withContext', ['ctx']);
    const finished = await runner.run(record);
    expect(finished.returnValue).toEqual({ label: 'ctx', attempt: 1, id: record.id });
  });

  it.each([
    ['a sync throw', 'GreetingTasks.failSync', 'GreetingFailure: sync failure'],
    ['an async rejection', 'GreetingTasks.failAsync', 'GreetingFailure: async failure'],
  ])('records %s as FAILED with the class name and stack', async (_label, name, text) => {
    const finished = await runner.run(running(name, []));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.finishedAt).toBeInstanceOf(Date);
    expect(finished).not.toHaveProperty('returnValue');
    expect(finished.errors).toEqual([
      { className: 'GreetingFailure', traceback: expect.stringContaining(text) },
    ]);
    expect(finished.errors[0].traceback).toContain('greeting.tasks.ts');
  });

  it('records a thrown non-Error value', async () => {
    const finished = await runner.run(running('GreetingTasks.throwNonError', []));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors).toEqual([
      { className: 'Object', traceback: 'Non-Error thrown: {"code":42}' },
    ]);
  });

  it('appends to the errors of earlier attempts', async () => {
    const earlier = { className: 'Earlier', traceback: 'Earlier: first attempt' };
    const record = { ...running('GreetingTasks.failSync', []), errors: [earlier] };
    const finished = await runner.run(record);
    expect(finished.errors.map((e) => e.className)).toEqual(['Earlier', 'GreetingFailure']);
  });

  it('fails a return value that would not survive JSON, naming the task', async () => {
    const finished = await runner.run(running('GreetingTasks.returnsDate', []));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors[0].className).toBe('InvalidTaskError');
    expect(finished.errors[0].traceback).toContain(
      'Task "GreetingTasks.returnsDate": return value is a Date',
    );
  });

  it('fails a task whose name no @Task declares, without running anything', async () => {
    const finished = await runner.run(running('Gone.task', ['Ada']));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors).toEqual([
      {
        className: 'UnknownTaskError',
        traceback: expect.stringContaining('No @Task named "Gone.task" is registered'),
      },
    ]);
    expect(greeter.greeted).toEqual([]);
  });

  it('gives a task whose name it does not register back within the grace, no attempt counted', async () => {
    const unleased: TaskRecord[] = [];
    moduleRef.get(EventStream).on('taskUnleased', ({ record }) => unleased.push(record));
    const record = running('Later.task', ['Ada']);
    const before = Date.now();
    const back = await runner.run(record, undefined, 60_000);
    expect(back).toMatchObject({ status: TaskResultStatus.READY, workerIds: [], errors: [] });
    expect(back.task.unknownSince?.getTime()).toBeGreaterThanOrEqual(before);
    // Due again at least a second later, so another worker can take it meanwhile.
    expect(
      back.task.runAfter!.getTime() - back.task.unknownSince!.getTime(),
    ).toBeGreaterThanOrEqual(1000);
    expect(unleased).toEqual([back]);
    expect(greeter.greeted).toEqual([]);
    // Put back again later, it keeps when it was first put back.
    const again = await runner.run({ ...record, task: back.task }, undefined, 60_000);
    expect(again.task.unknownSince).toEqual(back.task.unknownSince);
  });

  it('fails a task whose name it does not register once the grace has passed since the first put-back', async () => {
    const record = running('Later.task', []);
    const longAgo = new Date(Date.now() - 61_000);
    const finished = await runner.run(
      { ...record, task: { ...record.task, unknownSince: longAgo } },
      undefined,
      60_000,
    );
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors[0].className).toBe('UnknownTaskError');
    // A cancel asked meanwhile is not put off: the attempt ends and the lifecycle ends it CANCELLED.
    const marked = await runner.run(
      { ...record, cancelRequestedAt: new Date() },
      undefined,
      60_000,
    );
    expect(marked.status).toBe(TaskResultStatus.FAILED);
  });

  it('announces started and finished with the task state at each point', async () => {
    const events = moduleRef.get(TaskEvents);
    const seen: string[] = [];
    events.on('started', (result) => {
      seen.push(`started:${result.status}`);
    });
    events.on('finished', (result) => {
      seen.push(`finished:${result.status}`);
    });
    await runner.run(running('GreetingTasks.greet', ['Ada']));
    expect(seen).toEqual(['started:RUNNING', 'finished:SUCCESSFUL']);
  });

  it('keeps running when an event listener throws', async () => {
    moduleRef.get(TaskEvents).on('started', () => {
      throw new Error('listener bug');
    });
    const finished = await runner.run(running('GreetingTasks.greet', ['Ada']));
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
  });
});
