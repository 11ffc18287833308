import { setTimeout as sleep } from 'node:timers/promises';

import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';

import {
  MemoryBackend,
  Task,
  TaskResultStatus,
  TaskRunner,
  TaskTimeoutError,
  ThreadmillModule,
  currentTaskContext,
  type TaskRecord,
} from '../../../lib';
import { runningRecord } from '../../helpers/ready-record';

/** Tasks with a time limit: one that honours its signal, one that ignores it. */
@Injectable()
class TimedTasks {
  /** The reason each attempt's signal aborted with, as the task saw it. */
  readonly reasons: unknown[] = [];

  @Task({ name: 'timed.honours', timeoutMs: 30 })
  async honours(): Promise<string> {
    const signal = currentTaskContext()!.signal;
    try {
      await sleep(10_000, undefined, { signal });
      return 'slept';
    } catch (error) {
      this.reasons.push(signal.reason);
      throw error;
    }
  }

  @Task({ name: 'timed.ignores', timeoutMs: 20 })
  async ignores(ms: number): Promise<string> {
    await sleep(ms);
    return 'done anyway';
  }

  @Task({ name: 'timed.quick', timeoutMs: 5_000 })
  quick(): string {
    return 'quick';
  }

  @Task({ name: 'timed.unlimited' })
  unlimited(): boolean {
    return currentTaskContext()!.signal.aborted;
  }
}

function running(name: string, args: unknown[], timeoutMs?: number): TaskRecord {
  const record = runningRecord('default', { name, args });
  return timeoutMs === undefined ? record : { ...record, task: { ...record.task, timeoutMs } };
}

describe('TaskRunner: timeouts', () => {
  let moduleRef: TestingModule;
  let runner: TaskRunner;
  let tasks: TimedTasks;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [TimedTasks],
    }).compile();
    await moduleRef.init();
    runner = moduleRef.get(TaskRunner);
    tasks = moduleRef.get(TimedTasks);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  it('aborts the signal at the deadline with a TaskTimeoutError and fails the attempt with it', async () => {
    const started = Date.now();
    const finished = await runner.run(running('timed.honours', []));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors).toEqual([
      {
        className: 'TaskTimeoutError',
        traceback: expect.stringContaining('ran past its timeoutMs (30 ms)'),
      },
    ]);
    expect(tasks.reasons).toHaveLength(1);
    expect(tasks.reasons[0]).toBeInstanceOf(TaskTimeoutError);
    expect((tasks.reasons[0] as TaskTimeoutError).timeoutMs).toBe(30);
  });

  it('fails an attempt that ignored its signal and returned after the deadline', async () => {
    const finished = await runner.run(running('timed.ignores', [80]));
    expect(finished.status).toBe(TaskResultStatus.FAILED);
    expect(finished.errors[0].className).toBe('TaskTimeoutError');
    expect(finished).not.toHaveProperty('returnValue');
  });

  it('lets an attempt that ends in time succeed', async () => {
    const finished = await runner.run(running('timed.quick', []));
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(finished.returnValue).toBe('quick');
  });

  it('takes the limit stored with the task (a per-call override) over the declared one', async () => {
    const finished = await runner.run(running('timed.ignores', [40], 1_000));
    expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
    const cut = await runner.run(running('timed.unlimited', [], 1_000));
    expect(cut.returnValue).toBe(false);
  });

  it('gives every task a signal, which never aborts without a limit', async () => {
    const finished = await runner.run(running('timed.unlimited', []));
    expect(finished.returnValue).toBe(false);
  });
});
