import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  InvalidTaskError,
  MemoryBackend,
  TaskControlService,
  TaskResultDoesNotExist,
  TaskResultStatus,
  ThreadmillModule,
  type TaskBackend,
} from '../../../lib';
import { readyRecord } from '../../helpers/ready-record';

describe('TaskControlService', () => {
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

  const enqueue = async (name: string, count: number, queue = 'default'): Promise<string[]> => {
    const records = Array.from({ length: count }, () => readyRecord('default', { name, queue }));
    await backend.tasks.enqueueMany(records);
    return records.map((r) => r.id);
  };

  it('cancels one task by id and says what happened, as a TaskResult', async () => {
    const [id] = await enqueue('a.task', 1);
    const { outcome, result } = await control.cancel(id);
    expect(outcome).toBe('cancelled');
    expect(result.status).toBe(TaskResultStatus.CANCELLED);
    expect(result.isFinished).toBe(true);
    await expect(control.cancel(id)).resolves.toMatchObject({ outcome: 'already-final' });
    await expect(control.cancel('no-such-id')).rejects.toThrow(TaskResultDoesNotExist);
  });

  it("cancels every waiting task of a queue, ready and deferred, in batches, and no other queue's", async () => {
    const ready = await enqueue('a.task', 7);
    const deferred = readyRecord('default', { runAfter: new Date(Date.now() + 60_000) });
    await backend.tasks.enqueue(deferred);
    const elsewhere = await enqueue('a.task', 2, 'emails');
    await expect(control.cancelWaiting({ queue: 'default' }, { batchSize: 3 })).resolves.toBe(8);
    for (const id of [...ready, deferred.id]) {
      await expect(backend.tasks.getResult(id)).resolves.toMatchObject({
        status: TaskResultStatus.CANCELLED,
      });
    }
    for (const id of elsewhere) {
      await expect(backend.tasks.getResult(id)).resolves.toMatchObject({
        status: TaskResultStatus.READY,
      });
    }
  });

  it('cancels the waiting tasks of one name in every queue, past batches of other names', async () => {
    await enqueue('other.task', 5);
    const wanted = [
      ...(await enqueue('wanted.task', 3)),
      ...(await enqueue('wanted.task', 2, 'emails')),
    ];
    await enqueue('other.task', 4);
    await expect(
      control.cancelWaiting({ taskName: 'wanted.task' }, { batchSize: 2 }),
    ).resolves.toBe(5);
    for (const id of wanted) {
      await expect(backend.tasks.getResult(id)).resolves.toMatchObject({
        status: TaskResultStatus.CANCELLED,
      });
    }
    expect((await backend.reads.telemetry(60_000)).queues.default.counts).toMatchObject({
      ready: 9,
      cancelled: 3,
    });
  });

  it('refuses a filter that names neither a queue nor a task', async () => {
    await expect(control.cancelWaiting({} as { queue: string })).rejects.toThrow(InvalidTaskError);
  });
});
