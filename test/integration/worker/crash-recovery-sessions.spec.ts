import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';

import { SqliteBackend } from '../../../lib/backends/sqlite/sqlite.backend';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { storeRules } from '../../../lib/lifecycle/store-rules';
import { CrashRecovery } from '../../../lib/worker/pool/crash-recovery';
import { readyRecord } from '../../helpers/ready-record';
import { testAlias } from '../../helpers/test-alias';

// The late search of a crashed child's leases waits for its store to end the
// child's sessions (pools.endSessionsOf), not for a timer, where the store
// can: on SQLite a dead process has none left, so the search runs at once.
// A timed search here would wait LATE_MS, past the test's timeout.

const HOST = 'it-host';
const PID = 4343;
const LATE_MS = 600_000;

describe('CrashRecovery on a store that ends a dead child’s sessions', () => {
  let dir: string;
  let backend: SqliteBackend;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-crash-sessions-'));
    backend = new SqliteBackend(
      testAlias(),
      { backend: SqliteBackend, url: join(dir, 'threadmill.db') },
      storeRules,
    );
  });

  afterEach(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('searches again once the sessions ended, and gives back a lease that landed after the first search', async () => {
    const logger = new Logger('test');
    const warned: string[] = [];
    jest.spyOn(logger, 'warn').mockImplementation((message: string) => void warned.push(message));
    const recovery = new CrashRecovery({
      backend,
      logger,
      host: HOST,
      queues: ['default'],
      counted: () => undefined,
      lateSearchMs: LATE_MS,
    });
    const late = readyRecord(backend.alias, { id: 'late' });
    // The first search of the running tasks is where the late lease lands.
    const peek = backend.reads.peek.bind(backend.reads);
    let searches = 0;
    backend.reads.peek = async (queue, segment, count) => {
      const found = await peek(queue, segment, count);
      if (segment === 'running' && ++searches === 1) {
        await backend.tasks.enqueue(late);
        await backend.leases.acquire(['default'], { workerId: `${HOST}:${PID}-0`, timeoutMs: 0 });
      }
      return found;
    };

    const startedAt = Date.now();
    recovery.recover({
      pid: PID,
      held: [],
      unstarted: [],
      cause: 'signal SIGKILL',
      searchLeases: true,
      journalWhole: true,
      release: false,
    });
    await recovery.settled();

    expect(Date.now() - startedAt).toBeLessThan(LATE_MS);
    expect(searches).toBe(2);
    expect(await backend.tasks.getResult('late')).toMatchObject({
      status: TaskResultStatus.READY,
      workerIds: [],
      errors: [],
    });
    expect(warned).toEqual([
      expect.stringContaining('0 failed, 0 retried, 0 released, 1 never started and given back'),
    ]);
  });
});
