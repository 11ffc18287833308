import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  TaskControlService,
  TaskResultDoesNotExist,
  TaskResultStatus,
  ThreadmillModule,
  UnknownQueueError,
  type TaskBackend,
  type TaskRecord,
} from '../../../lib';
import { readyRecord } from '../../helpers/ready-record';
import { failedAttempt, nextAttempt } from '../../../lib/lifecycle/retry-policy';

describe('TaskControlService: retry and remove by hand', () => {
  let moduleRef: TestingModule;
  let control: TaskControlService;
  let backend: TaskBackend;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
        }),
      ],
    }).compile();
    await moduleRef.init();
    control = moduleRef.get(TaskControlService);
    backend = moduleRef.get(BackendRegistry).get('default');
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  const take = async (): Promise<TaskRecord> => {
    const [running] = await backend.leases.acquire(['default', 'emails'], {
      workerId: 'w',
      timeoutMs: 0,
    });
    return running;
  };

  /** Enqueues and runs `count` tasks to FAILED (no retries left). */
  const failed = async (name: string, count: number, queue = 'default'): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      await backend.tasks.enqueue(readyRecord('default', { name, queue }));
      const running = await take();
      await backend.leases.acknowledge([failedAttempt(running, new Error('boom'))]);
      ids.push(running.id);
    }
    return ids;
  };

  it('gives a task whose retries were used up exactly one more attempt, its history kept', async () => {
    const [id] = await failed('a.task', 1);
    const { outcome, result } = await control.retry(id);
    expect(outcome).toBe('retried');
    expect(result.status).toBe(TaskResultStatus.READY);
    expect(result.errors).toHaveLength(1);
    const second = await take();
    expect(second.workerIds).toEqual(['w', 'w']);
    // The policy decides after the retried attempt as ever: no retries left, so FAILED.
    const decided = nextAttempt(second, { className: 'Error', traceback: 'again' }, new Date());
    expect(decided.status).toBe(TaskResultStatus.FAILED);
  });

  it('says why a task was not retried, and throws for an unknown id', async () => {
    const waiting = await backend.tasks.enqueue(readyRecord('default'));
    await expect(control.retry(waiting.id)).resolves.toMatchObject({ outcome: 'not-final' });
    const running = await take();
    await backend.leases.acknowledge([
      { ...running, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date(), returnValue: 1 },
    ]);
    await expect(control.retry(running.id)).resolves.toMatchObject({ outcome: 'successful' });
    await expect(control.retry('no-such-id')).rejects.toThrow(TaskResultDoesNotExist);
  });

  it('makes one new attempt of two retries at once', async () => {
    const [id] = await failed('a.task', 1);
    const outcomes = await Promise.all([control.retry(id), control.retry(id)]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['already-retried', 'retried']);
    await expect(backend.reads.peek('default', 'ready', 10)).resolves.toHaveLength(1);
  });

  it('removes a final task only, and throws for an unknown id', async () => {
    const waiting = await backend.tasks.enqueue(readyRecord('default'));
    await expect(control.remove(waiting.id)).resolves.toBe('not-final');
    const [id] = await failed('a.task', 1, 'emails');
    await expect(control.remove(id)).resolves.toBe('removed');
    await expect(backend.tasks.getResult(id)).rejects.toThrow(TaskResultDoesNotExist);
    await expect(control.remove(id)).rejects.toThrow(TaskResultDoesNotExist);
    const [twice] = await failed('a.task', 1);
    const both = await Promise.all([control.remove(twice), control.remove(twice)]);
    expect(both.sort()).toEqual(['already-removed', 'removed']);
  });

  it('retries the FAILED tasks of one queue and name, reading at most a batch more than it passed', async () => {
    const others = await failed('other.task', 3);
    const wanted = await failed('wanted.task', 5);
    await failed('wanted.task', 2, 'emails');
    const peek = jest.spyOn(backend.reads, 'peek');
    const count = await control.retryAll(
      { queue: 'default', task: 'wanted.task', status: 'FAILED' },
      { batchSize: 2 },
    );
    expect(count).toBe(5);
    for (const [, , asked] of peek.mock.calls) expect(asked).toBeLessThanOrEqual(2 + others.length);
    const ready = (await backend.reads.peek('default', 'ready', 20)).map((r) => r.id);
    expect(ready.sort()).toEqual([...wanted].sort());
    await expect(backend.reads.peek('emails', 'failed', 10)).resolves.toHaveLength(2);
  });

  it('removes every task of a queue in one final status', async () => {
    await failed('a.task', 4);
    await expect(
      control.removeAll({ queue: 'default', status: 'FAILED' }, { batchSize: 3 }),
    ).resolves.toBe(4);
    await expect(backend.reads.peek('default', 'failed', 10)).resolves.toEqual([]);
    const { counts } = (await backend.reads.telemetry(60_000)).queues.default;
    expect(counts.failed).toBe(0);
  });

  it('refuses a bulk retry of SUCCESSFUL tasks and an unknown queue', async () => {
    await expect(control.retryAll({ queue: 'default', status: 'SUCCESSFUL' })).rejects.toThrow(
      InvalidTaskError,
    );
    await expect(control.removeAll({ queue: 'nope', status: 'FAILED' })).rejects.toThrow(
      UnknownQueueError,
    );
  });
});
