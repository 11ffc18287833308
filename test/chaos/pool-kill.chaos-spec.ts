import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { TaskResultStatus } from '../../lib/core';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';
import {
  CHAOS_QUEUES,
  audit,
  auditLine,
  chaosRecord,
  report,
  settled,
  startPool,
  type RunningPool,
} from './chaos-harness';

// kill -9 of a whole pool (main process and children, one process group)
// mid-run. Nobody is left to fail its tasks; a second pool started afterwards
// must recover them (dead-pool recovery: WorkerLost) within seconds, not after
// leaseTtl (1 h here), and finish the rest.

const TASKS = 2000;
const TASK_MS = 50;
/** The target: the dead pool's tasks settled within 5 s of the new pool's start. */
const RECOVERY_TARGET_MS = 5000;

describe('chaos: kill -9 of a whole pool', () => {
  jest.setTimeout(120_000);
  let redis: RedisServerHandle;
  let backend: RedisBackend | undefined;
  let journalDir: string;
  const pools: RunningPool[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });

  afterAll(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    await backend?.close();
    await redis?.stop();
    rmSync(journalDir, { recursive: true, force: true });
  });

  it('a second pool recovers everything the killed pool held, within seconds', async () => {
    const alias = testAlias();
    backend = new RedisBackend(alias, {
      backend: RedisBackend,
      url: redis.url,
      queues: CHAOS_QUEUES,
    });
    const journal = join(journalDir, 'pool-kill.log');
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    const ids = records.map((r) => r.id);
    await backend.enqueueMany(records);
    const env = {
      REDIS_URL: redis.url,
      THREADMILL_ALIAS: alias,
      THREADMILL_BROKER_INTERVAL_MS: '500',
    };
    const args = ['--backend', alias, '--processes', '2', '--threads', '8'];

    const first = startPool(args, env, pools);
    await waitFor(
      async () => {
        const { counts } = (await backend!.telemetry(1000)).queues.default;
        return counts.successful >= TASKS / 5 && counts.running >= 8;
      },
      { timeoutMs: 60_000, intervalMs: 10, what: 'a busy pool' },
    );
    const held = (await backend.peek('default', 'running', 1000)).map((r) => r.id);
    await first.killGroup();

    const second = startPool(args, env, pools);
    const secondStartedAt = Date.now();
    await waitFor(
      async () => {
        const now = await Promise.all(held.map((id) => backend!.getResult(id)));
        return now.every((r) => r.status !== TaskResultStatus.RUNNING);
      },
      { timeoutMs: 60_000, intervalMs: 25, what: "the dead pool's tasks to be recovered" },
    );
    const recoveredMs = Date.now() - secondStartedAt;
    const settledInTime = await settled(backend, 60_000);
    const result = await audit(backend, ids, journal);
    report(
      auditLine(
        'kill -9 of a whole pool, then a second pool',
        result,
        `${held.length} held by the dead pool, recovered ${recoveredMs} ms after the second pool started`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(second.output().slice(-4000));

    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerLost')).toEqual([]);
    expect(result.successful + (result.failed.WorkerLost ?? 0)).toBe(TASKS);
    expect(result.duplicates).toEqual([]);
    expect(recoveredMs).toBeLessThan(RECOVERY_TARGET_MS + 10_000);
    second.process.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
