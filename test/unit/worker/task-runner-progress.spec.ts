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

/** What the gated tasks wait for; made again for each test. */
let gate: { promise: Promise<void>; open: () => void };
const newGate = (): typeof gate => {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

@Injectable()
class ProgressTasks {
  /** Reports 1..count at once, as a chatty loop would, and returns. */
  @Task({ name: 'progress.count' })
  count(count: number): string {
    for (let i = 1; i <= count; i++) currentTaskContext()!.progress(i);
    return 'counted';
  }

  /** Reports where it is, then waits for the test to let it finish. */
  @Task({ name: 'progress.gated' })
  async gated(): Promise<void> {
    currentTaskContext()!.progress('waiting');
    await gate.promise;
    currentTaskContext()!.progress('done');
  }

  @Task({ name: 'progress.failing' })
  failing(): void {
    currentTaskContext()!.progress(0.5);
    throw new Error('boom');
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

  const leased = async (name: string, args: unknown[], retries = 0) => {
    const ready = readyRecord('default', { name, args });
    await backend.tasks.enqueue({ ...ready, task: { ...ready.task, retries } });
    const [record] = await backend.leases.acquire(['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    return record;
  };

  it('writes nothing of a task shorter than the interval: its record carries the last value, acknowledge stores it', async () => {
    const record = await leased('progress.count', [1000]);
    const progressed: TaskResult[] = [];
    events.on('progressed', (result) => {
      progressed.push(result);
    });
    const storeProgress = jest.spyOn(backend.leases, 'storeProgress');
    const finished = await runner.run(record);
    expect(finished).toMatchObject({ status: TaskResultStatus.SUCCESSFUL, progress: 1000 });
    expect(storeProgress).not.toHaveBeenCalled();
    expect(progressed).toEqual([]);
    expect((await backend.tasks.getResult(record.id)).progress).toBeUndefined();
    await backend.leases.acknowledge([finished]);
    expect((await backend.tasks.getResult(record.id)).progress).toBe(1000);
  });

  it('writes the values of all running tasks in one call per interval, and emits progressed for each', async () => {
    gate = newGate();
    const records = [await leased('progress.gated', []), await leased('progress.gated', [])];
    const storeProgress = jest.spyOn(backend.leases, 'storeProgress');
    const progressed = new Promise<TaskResult[]>((resolve) => {
      const seen: TaskResult[] = [];
      events.on('progressed', (result) => {
        seen.push(result);
        if (seen.length === 2) resolve(seen);
      });
    });
    const running = records.map((record) => runner.run(record));
    const seen = await progressed;
    expect(seen.map((result) => [result.id, result.progress])).toEqual(
      records.map((record) => [record.id, 'waiting']),
    );
    expect(storeProgress).toHaveBeenCalledTimes(1);
    expect(storeProgress.mock.calls[0][0].map((entry) => entry.record.id)).toEqual(
      records.map((record) => record.id),
    );
    gate.open();
    const finished = await Promise.all(running);
    expect(finished.map((record) => record.progress)).toEqual(['done', 'done']);
    await backend.leases.acknowledge(finished);
    for (const record of records) {
      expect((await backend.tasks.getResult(record.id)).progress).toBe('done');
    }
    expect(storeProgress).toHaveBeenCalledTimes(1);
  });

  it("writes a retried attempt's last value before it returns, its record carrying none", async () => {
    const record = await leased('progress.failing', [], 1);
    const finished = await runner.run(record);
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished).not.toHaveProperty('progress');
    await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
      status: TaskResultStatus.RUNNING,
      progress: 0.5,
    });
  });

  it('fails the attempt that reports a value it cannot store, naming the error', async () => {
    const finished = await runner.run(await leased('progress.invalid', []));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors.at(-1)?.className).toBe(InvalidTaskProgressError.name);
    expect((await backend.tasks.getResult(finished.id)).progress).toBeUndefined();
  });
});
