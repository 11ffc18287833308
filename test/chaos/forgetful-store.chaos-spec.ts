import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { freePort } from '../helpers/free-port';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';
import {
  CHAOS_QUEUES,
  audit,
  auditLine,
  chaosRecord,
  readJournal,
  report,
  settled,
  startPool,
  type RunningPool,
} from './chaos-harness';
import { storeRules } from '../../lib/lifecycle/store-rules';

// A Redis that keeps nothing on disk, restarted under a pool in the middle of
// a drain, comes back empty: every task it acknowledged is gone, and the pool
// simply finds the queues empty. That must not go unnoticed: the pool warns
// of such a Redis when it starts (its health degraded), and after the restart
// it logs an error saying the data is gone and its health turns down.

const TASKS = 2000;
const TASK_MS = 20;
/** Runs journaled before Redis is restarted: well into the drain, far from its end. */
const RESTART_AFTER_RUNS = 300;

interface PoolHealthReport {
  status: string;
  reasons: string[];
  warnings: string[];
}

async function healthOf(port: number): Promise<{ code: number; report: PoolHealthReport }> {
  const response = await fetch(`http://127.0.0.1:${port}/`);
  return { code: response.status, report: (await response.json()) as PoolHealthReport };
}

describe('chaos: a Redis that keeps nothing on disk', () => {
  jest.setTimeout(120_000);
  const servers: RedisServerHandle[] = [];
  const pools: RunningPool[] = [];
  let backend: RedisBackend | undefined;
  let journalDir: string;

  beforeAll(() => {
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });
  afterAll(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    await backend?.close();
    for (const server of servers.splice(0)) await server.stop();
    rmSync(journalDir, { recursive: true, force: true });
  });

  it('Redis without persistence, restarted mid-drain is noticed: a warning at start, an error and health down after the restart', async () => {
    // This process's own backend notices too; its lines would only repeat the pool's.
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const noPersistence = ['--save', '', '--appendonly', 'no'];
    const redis = await startRedisServer(noPersistence);
    servers.push(redis);
    const alias = testAlias();
    backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: redis.url,
        queues: CHAOS_QUEUES,
        options: { connectTimeout: 1000 },
      },
      storeRules,
    );
    const journal = join(journalDir, 'forgotten.log');
    const healthPort = await freePort();
    const pool = startPool(
      ['--alias', alias, '--processes', '2', '--threads', '8', '--health-port', String(healthPort)],
      {
        REDIS_URL: redis.url,
        THREADMILL_ALIAS: alias,
        THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
        THREADMILL_LOG_LEVEL: 'log',
      },
      pools,
    );
    const started = await waitFor(
      () => healthOf(healthPort).then((health) => (health.code === 200 ? health.report : null)),
      { timeoutMs: 60_000, intervalMs: 200, what: 'the pool to report up' },
    );
    // At start: a warning naming the risk, and health up but degraded.
    expect(pool.output()).toMatch(
      /Threadmill backend ".*": Redis at redis:\/\/127\.0\.0\.1:\d+\/? keeps nothing on disk \(no AOF, no RDB snapshots\)/,
    );
    expect(started.warnings).toEqual([
      `Backend "${alias}": its store keeps nothing on disk, so a restart of it loses every task, waiting, running or finished.`,
    ]);

    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    await backend.tasks.enqueueMany(records);
    await waitFor(() => readJournal(journal).size >= RESTART_AFTER_RUNS, {
      timeoutMs: 60_000,
      what: `${RESTART_AFTER_RUNS} runs`,
    });
    const exited = new Promise((resolve) => redis.process.once('exit', resolve));
    redis.process.kill('SIGKILL');
    await exited;
    const restartedAt = Date.now();
    // Same port, started as before: it comes back empty.
    servers.push(await startRedisServer(noPersistence, redis.port));

    const down = await waitFor(
      () => healthOf(healthPort).then((health) => (health.code === 503 ? health.report : null)),
      { timeoutMs: 30_000, intervalMs: 100, what: 'the pool to report down' },
    );
    const noticedMs = Date.now() - restartedAt;
    const gone = /Threadmill backend ".*": the data in Redis at .* is gone\./;
    expect(down.reasons.filter((reason) => gone.test(reason))).toHaveLength(1);
    expect(pool.output()).toMatch(new RegExp(`ERROR .*${gone.source}`));

    // The pool carries on with new work, and what was lost stays reported.
    const after = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 0));
    await backend.tasks.enqueueMany(after);
    expect(await settled(backend, 30_000)).toBe(true);
    const ran = await audit(
      backend,
      after.map((record) => record.id),
      journal,
    );
    expect(ran.successful).toBe(after.length);
    const lost = await audit(
      backend,
      records.map((record) => record.id),
      journal,
    );
    report(
      auditLine(
        'Redis without persistence restarted mid-drain',
        lost,
        `restarted after ${RESTART_AFTER_RUNS}+ runs; the pool warned at start (health up, ` +
          `degraded), logged the loss and reported down ${noticedMs} ms after the restart; ` +
          `${after.length} tasks enqueued afterwards all SUCCESSFUL`,
      ),
    );
    // The fault is real: acknowledged tasks vanished with the restart.
    expect(lost.lost.length).toBeGreaterThan(0);
    expect((await healthOf(healthPort)).code).toBe(503);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
