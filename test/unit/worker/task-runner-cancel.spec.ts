import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  CancelHook,
  MemoryBackend,
  Task,
  TaskCancelledError,
  TaskResultStatus,
  TaskRunner,
  ThreadmillModule,
  currentTaskContext,
  type TaskRecord,
} from '../../../lib';

/** Tasks that are cancelled while they run: one honours its signal, one ignores it. */
@Injectable()
class CancelledTasks {
  /** The reason each attempt's signal aborted with, as the task saw it. */
  readonly reasons: unknown[] = [];
  calls = 0;

  @Task({ name: 'cancel.honours', timeoutMs: 10_000 })
  async honours(): Promise<string> {
    this.calls++;
    const signal = currentTaskContext()!.signal;
    try {
      await sleep(10_000, undefined, { signal });
      return 'slept';
    } catch (error) {
      this.reasons.push(signal.reason);
      throw error;
    }
  }

  @Task({ name: 'cancel.ignores' })
  async ignores(ms: number): Promise<string> {
    this.calls++;
    await sleep(ms);
    return 'done anyway';
  }
}

function running(name: string, args: unknown[]): TaskRecord {
  const now = new Date();
  return {
    id: randomUUID(),
    task: { name, queue: 'default', priority: 0, runAfter: null, backend: 'default', retries: 3 },
    status: TaskResultStatus.RUNNING,
    enqueuedAt: now,
    startedAt: now,
    finishedAt: null,
    lastAttemptedAt: now,
    args,
    errors: [],
    workerIds: ['host:1-0'],
  };
}

describe('TaskRunner: cancel', () => {
  let moduleRef: TestingModule;
  let runner: TaskRunner;
  let tasks: CancelledTasks;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [CancelledTasks],
    }).compile();
    await moduleRef.init();
    runner = moduleRef.get(TaskRunner);
    tasks = moduleRef.get(CancelledTasks);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  it('aborts the signal with a TaskCancelledError and ends the attempt CANCELLED', async () => {
    const cancel = new AbortController();
    const run = runner.run(running('cancel.honours', []), cancel.signal);
    setImmediate(() => cancel.abort());
    const finished = await run;
    expect(finished.status).toBe(TaskResultStatus.CANCELLED);
    expect(finished.finishedAt).toBeInstanceOf(Date);
    expect(finished.errors).toEqual([
      { className: 'TaskCancelledError', traceback: expect.stringContaining('was cancelled') },
    ]);
    expect(tasks.reasons).toHaveLength(1);
    expect(tasks.reasons[0]).toBeInstanceOf(TaskCancelledError);
  });

  it('ends CANCELLED an attempt that ignored its signal and returned', async () => {
    const cancel = new AbortController();
    const run = runner.run(running('cancel.ignores', [30]), cancel.signal);
    cancel.abort();
    const finished = await run;
    expect(finished.status).toBe(TaskResultStatus.CANCELLED);
    expect(finished).not.toHaveProperty('returnValue');
  });

  it('never calls the method of an attempt cancelled before it started', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const finished = await runner.run(running('cancel.honours', []), cancel.signal);
    expect(finished.status).toBe(TaskResultStatus.CANCELLED);
    expect(tasks.calls).toBe(0);
  });

  describe('through a CancelHook, as a pool child cancels', () => {
    it('aborts the signal the task reads, whether it read it before or after the request', async () => {
      const cancel = new CancelHook();
      const run = runner.run(running('cancel.honours', []), cancel);
      setImmediate(() => cancel.request());
      await expect(run).resolves.toMatchObject({ status: TaskResultStatus.CANCELLED });
      expect(tasks.reasons[0]).toBeInstanceOf(TaskCancelledError);
    });

    it('never calls the method of an attempt cancelled before it started', async () => {
      const cancel = new CancelHook();
      cancel.request();
      const finished = await runner.run(running('cancel.honours', []), cancel);
      expect(finished.status).toBe(TaskResultStatus.CANCELLED);
      expect(tasks.calls).toBe(0);
    });

    it('ends CANCELLED an attempt that never read its signal', async () => {
      const cancel = new CancelHook();
      const run = runner.run(running('cancel.ignores', [30]), cancel);
      cancel.request();
      await expect(run).resolves.toMatchObject({ status: TaskResultStatus.CANCELLED });
    });
  });
});
