import { Logger } from '@nestjs/common';

import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { CrashRecovery } from '../../../lib/worker/pool/crash-recovery';
import { leaseTo, memoryBackend, readyTask } from '../../helpers/memory-backend';

// A store may commit a lease of a killed child after the pool searched for
// that child's leases (a SQL server finishes the call and notices the closed
// connection only when it replies). Such a lease was never received: the
// late search gives it back, and leaves alone what the first pass handled.

const HOST = 'unit-host';
const PID = 4242;

describe('CrashRecovery', () => {
  it('gives back a lease of a crashed child committed after its first search, once', async () => {
    const backend = memoryBackend();
    const logger = new Logger('test');
    const warned: string[] = [];
    jest.spyOn(logger, 'warn').mockImplementation((message: string) => void warned.push(message));
    const recovery = new CrashRecovery({
      backend,
      logger,
      host: HOST,
      queues: ['default'],
      counted: () => undefined,
      lateSearchMs: 20,
    });
    // What the journal held: failed by the first pass as it always was.
    const [journaled] = await leaseTo(backend, `${HOST}:${PID}-0`, readyTask('journaled'));
    // The first search of the running tasks is where the late lease lands.
    const peek = backend.reads.peek.bind(backend.reads);
    let searches = 0;
    backend.reads.peek = async (queue, segment, count) => {
      const found = await peek(queue, segment, count);
      if (segment === 'running' && ++searches === 1)
        await leaseTo(backend, `${HOST}:${PID}-1`, readyTask('late'));
      return found;
    };

    recovery.recover({
      pid: PID,
      held: [journaled.id],
      unstarted: [],
      cause: 'signal SIGKILL',
      searchLeases: true,
      journalWhole: true,
      release: false,
    });
    await recovery.settled();

    expect(searches).toBe(2);
    const late = await backend.tasks.getResult('late');
    expect(late).toMatchObject({ status: TaskResultStatus.READY, workerIds: [], errors: [] });
    expect((await backend.tasks.getResult('journaled')).errors.map((e) => e.className)).toEqual([
      'WorkerCrashed',
    ]);
    expect(warned).toEqual([
      expect.stringContaining('1 failed, 0 retried, 0 released, 0 never started'),
      expect.stringContaining('0 failed, 0 retried, 0 released, 1 never started and given back'),
    ]);
    await backend.close();
  });
});
