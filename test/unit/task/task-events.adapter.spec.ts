import { Test, type TestingModule } from '@nestjs/testing';

import {
  MemoryBackend,
  TaskEvents,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  type TaskRecord,
  type TaskResult,
} from '../../../lib';
import { EventStream } from '../../../lib/core/event-stream';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';
import { runningRecord } from '../../helpers/ready-record';

/** A RUNNING record as a worker would hand it over after acquire, with `retries` allowed. */
const running = (name: string, retries = 0): TaskRecord => {
  const record = runningRecord('default', { name });
  return { ...record, task: { ...record.task, retries } };
};

describe('TaskEvents fed from the event stream', () => {
  let moduleRef: TestingModule;
  let runner: TaskRunner;
  let events: TaskEvents;
  let stream: EventStream;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    runner = moduleRef.get(TaskRunner);
    events = moduleRef.get(TaskEvents);
    stream = moduleRef.get(EventStream);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  it('hears "finished" for every ended attempt, one to be retried included, with its record as it ended', async () => {
    const heard: string[] = [];
    events.on('finished', (result) => void heard.push(`${result.status} ${result.attempts}`));
    await runner.run(running('GreetingTasks.failSync', 1));
    await runner.run(running('GreetingTasks.failSync'));
    await runner.run(running('GreetingTasks.nothing'));
    expect(heard).toEqual(['FAILED 1', 'FAILED 1', 'SUCCESSFUL 1']);
  });

  it('gets from "enqueued" the very result the enqueue returned', async () => {
    const heard: TaskResult[] = [];
    events.on('enqueued', (result) => void heard.push(result));
    const result = await moduleRef.get(TaskService).enqueue(GreetingTasks, 'greet', ['Ada']);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBe(result);
  });

  it('makes the stream build no task event while TaskEvents has no listener of it', async () => {
    const emit = jest.spyOn(stream, 'emit');
    await runner.run(running('GreetingTasks.greet'));
    await moduleRef.get(TaskService).enqueue(GreetingTasks, 'greet', ['Ada']);
    expect(emit).not.toHaveBeenCalled();

    const off = events.on('started', () => undefined);
    await runner.run(running('GreetingTasks.greet'));
    expect(emit.mock.calls.map(([kind]) => kind)).toEqual(['taskStarted']);
    off();
    emit.mockClear();
    await runner.run(running('GreetingTasks.greet'));
    expect(emit).not.toHaveBeenCalled();
  });

  it('leaves the stream when its module is destroyed', async () => {
    const own = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
    }).compile();
    await own.init();
    const ownStream = own.get(EventStream);
    own.get(TaskEvents).on('finished', () => undefined);
    expect(ownStream.listens('taskFinished')).toBe(true);
    await own.close();
    expect(ownStream.listens('taskFinished')).toBe(false);
  });
});
