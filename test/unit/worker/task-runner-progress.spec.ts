import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  InvalidTaskProgressError,
  MemoryBackend,
  Task,
  TaskEvents,
  TaskResultStatus,
  TaskRunner,
  ThreadmillModule,
  currentTaskContext,
  type TaskBackend,
  type TaskResult,
} from '../../../lib';
import { BackendRegistry } from '../../../lib/backends/backend.registry';
import { readyRecord } from '../../helpers/ready-record';

@Injectable()
class ProgressTasks {
  /** Reports 1..count at once, as a chatty loop would, and returns. */
  @Task({ name: 'progress.count' })
  count(count: number): string {
    for (let i = 1; i <= count; i++) currentTaskContext()!.progress(i);
    return 'counted';
  }

  @Task({ name: 'progress.invalid' })
  invalid(): void {
    currentTaskContext()!.progress(new Date(0));
  }
}

describe('TaskRunner and progress', () => {
  let moduleRef: TestingModule;
  let runner: TaskRunner;
  let events: TaskEvents;
  let backend: TaskBackend;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [ProgressTasks],
    }).compile();
    await moduleRef.init();
    runner = moduleRef.get(TaskRunner);
    events = moduleRef.get(TaskEvents);
    backend = moduleRef.get(BackendRegistry).get('default');
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  const leased = async (name: string, args: unknown[]) => {
    await backend.enqueue(readyRecord('default', { name, args }));
    const [record] = await backend.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0 });
    return record;
  };

  it('stores the last value before the attempt ends and emits progressed once for it', async () => {
    const record = await leased('progress.count', [1000]);
    const progressed: TaskResult[] = [];
    events.on('progressed', (result) => {
      progressed.push(result);
    });
    const finished = await runner.run(record);
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
    // Stored while the attempt still held the task, before its outcome.
    await expect(backend.getResult(record.id)).resolves.toMatchObject({
      status: TaskResultStatus.RUNNING,
      progress: 1000,
    });
    expect(progressed.map((result) => [result.id, result.progress])).toEqual([[record.id, 1000]]);
    await backend.acknowledge([finished]);
    expect((await backend.getResult(record.id)).progress).toBe(1000);
  });

  it('fails the attempt that reports a value it cannot store, naming the error', async () => {
    const finished = await runner.run(await leased('progress.invalid', []));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors.at(-1)?.className).toBe(InvalidTaskProgressError.name);
    expect((await backend.getResult(finished.id)).progress).toBeUndefined();
  });
});
