import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import {
  APP_CLI,
  FIXTURE_CLI,
  startNodeProcess,
  untilOutput,
  type RunningCli,
} from '../helpers/cli-process';
import { readyRecord } from '../helpers/ready-record';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { untilStatus } from '../helpers/task-status';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// A producer deployed before its worker: tasks named for code no running pool
// has. Real pools on one Redis alias: the fixture app's, which registers no
// `billing.invoice`, and the billing app's, which does
// (test/fixtures/worker/app-main.ts). The first gives the task back, no
// attempt counted, until the second takes it; a name no pool registers fails
// only once the grace has passed.

const GAVE_BACK = /Gave back \d+ task\(s\) named "([^"]+)"/;

describe('rolling deploys (e2e: a pool meets task names it does not register)', () => {
  jest.setTimeout(120_000);
  const started: RunningCli[] = [];
  let backend: RedisBackend;
  let alias: string;

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    REDIS_URL: testRedisUrl(),
    THREADMILL_ALIAS: alias,
    THREADMILL_MAINTENANCE_INTERVAL_MS: '250',
    ...extra,
  });
  const pool = (cli: string, args: readonly string[], extra?: Record<string, string>) =>
    startNodeProcess(cli, ['worker', '--processes', '1', '--queues', 'default', ...args], started, {
      env: env(extra),
    });
  const enqueue = async (name: string): Promise<TaskRecord> =>
    backend.tasks.enqueue(readyRecord(alias, { name, queue: 'default' }));
  const read = (id: string): Promise<TaskRecord> => backend.tasks.getResult(id);

  beforeEach(() => {
    alias = testAlias();
    backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: testRedisUrl(),
        queues: ['default', 'emails'],
      },
      storeRules,
    );
  });

  afterEach(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    await backend.close();
    const admin = new Redis(testRedisUrl());
    await removeAliasKeys(admin, alias);
    await admin.quit();
  });

  it('gives a task back, no attempt counted, until a pool that registers it runs it', async () => {
    const task = await enqueue('billing.invoice');
    const unaware = pool(FIXTURE_CLI, ['--unknown-task-grace', '60000']);
    await expect(untilOutput(unaware, GAVE_BACK)).resolves.toContain('billing.invoice');
    const back = await waitFor(async () => {
      const stored = await read(task.id);
      return stored.task.unknownSince && stored.status !== TaskResultStatus.RUNNING ? stored : null;
    });
    expect(back.workerIds).toEqual([]);
    expect(back.errors).toEqual([]);

    pool(APP_CLI, [], { THREADMILL_FIXTURE_APP: 'billing', THREADMILL_APP: 'billing' });
    const [done] = await untilStatus(backend, [task], TaskResultStatus.SUCCESSFUL, 60_000);
    // Only the run that ran it counts: every give-back before it left no attempt behind.
    expect(done.workerIds).toHaveLength(1);
    expect(done.returnValue).toBe('billing by hand');
  });

  it('fails a task no pool registers once the grace has passed since its first give-back', async () => {
    const task = await enqueue('nobody.registers');
    pool(FIXTURE_CLI, ['--unknown-task-grace', '1500']);
    const [failed] = await untilStatus(backend, [task], TaskResultStatus.FAILED, 30_000);
    expect(failed.errors.map((error) => error.className)).toEqual(['UnknownTaskError']);
    expect(failed.workerIds).toHaveLength(1);
    const since = failed.task.unknownSince?.getTime() ?? Number.NaN;
    expect(failed.finishedAt!.getTime() - since).toBeGreaterThanOrEqual(1500);
  });
});
