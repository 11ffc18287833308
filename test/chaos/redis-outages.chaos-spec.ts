import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
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
import { storeRules } from '../../lib/lifecycle/store-rules';

// Redis itself goes away under a running pool and a busy producer: a restart
// (AOF with appendfsync always, same port and directory) and CLIENT KILL of
// every connection. Nothing acknowledged may be lost, the pool must carry on
// without being restarted, and enqueue during the outage must fail fast and typed.

const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];
const TASKS = 600;
const TASK_MS = 20;
/** Enqueue's bound while Redis is down: about connectTimeout, plus slack for a loaded machine. */
const CONNECT_TIMEOUT_MS = 1000;
const ENQUEUE_BOUND_MS = CONNECT_TIMEOUT_MS + 4000;
/** How long Redis stays down in the restart scenario. */
const OUTAGE_MS = 2500;
// A lease reply lost with a dropped connection is recovered by the reaper; a short
// lease keeps that inside the test (the audit counts AcknowledgementTimeout separately).
const LEASE_TTL_MS = 15_000;

interface ProducerRun {
  /** Ids whose enqueue resolved: each must be found afterwards. */
  acknowledged: string[];
  /** Ids whose enqueue lost its reply (EnqueueOutcomeUnknownError): stored or not, never twice. */
  unknown: string[];
  /** Each failed enqueue: its error class and how long the call took. */
  failures: { name: string; message: string; ms: number }[];
}

/**
 * Enqueues TASKS tasks one call at a time (as request handlers do), calling
 * `disrupt` once, after `disruptAfter` have been acknowledged; failed calls are
 * recorded and the producer goes on with the next task.
 */
async function produce(
  backend: RedisBackend,
  alias: string,
  journal: string,
  disruptAfter: number,
  disrupt: () => Promise<void>,
): Promise<ProducerRun> {
  const run: ProducerRun = { acknowledged: [], unknown: [], failures: [] };
  let disruption: Promise<void> | null = null;
  for (let i = 0; i < TASKS * 2 && run.acknowledged.length < TASKS; i++) {
    if (run.acknowledged.length === disruptAfter && disruption === null) disruption = disrupt();
    const record = chaosRecord(alias, journal, TASK_MS);
    const started = Date.now();
    try {
      await backend.tasks.enqueue(record);
      run.acknowledged.push(record.id);
    } catch (error) {
      if (error instanceof EnqueueOutcomeUnknownError) run.unknown.push(...error.ids);
      run.failures.push({
        name: (error as Error).name,
        message: (error as Error).message,
        ms: Date.now() - started,
      });
    }
  }
  await disruption;
  return run;
}

describe('chaos: Redis goes away under a running pool', () => {
  jest.setTimeout(120_000);
  const servers: RedisServerHandle[] = [];
  const pools: RunningPool[] = [];
  let backend: RedisBackend | undefined;
  let journalDir: string;

  beforeAll(() => {
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });

  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    await backend?.close();
    backend = undefined;
    for (const server of servers.splice(0)) await server.stop();
  });

  afterAll(() => rmSync(journalDir, { recursive: true, force: true }));

  async function setUp(name: string) {
    const redis = await startRedisServer(AOF);
    servers.push(redis);
    const alias = testAlias();
    backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: redis.url,
        queues: CHAOS_QUEUES,
        options: { connectTimeout: CONNECT_TIMEOUT_MS },
      },
      storeRules,
    );
    const pool = startPool(
      ['--alias', alias, '--processes', '2', '--threads', '8'],
      {
        REDIS_URL: redis.url,
        THREADMILL_ALIAS: alias,
        THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
        THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
      pools,
    );
    await waitFor(() => pool.liveChildren().length === 2, {
      timeoutMs: 60_000,
      what: 'two ready children',
    });
    return { redis, alias, backend, pool, journal: join(journalDir, `${name}.log`) };
  }

  /** What must hold after any outage: every acknowledged id final, the pool never restarted. */
  async function auditAfter(
    scenario: string,
    backend: RedisBackend,
    pool: RunningPool,
    children: number[],
    run: ProducerRun,
    journal: string,
    extra: string,
  ) {
    const settledInTime = await settled(backend, LEASE_TTL_MS + 30_000);
    const result = await audit(backend, run.acknowledged, journal);
    const slowestFailure = Math.max(0, ...run.failures.map((f) => f.ms));
    report(
      auditLine(
        scenario,
        result,
        `${run.failures.length} enqueue(s) failed during the outage (${run.unknown.length} of ` +
          `them with the outcome unknown; slowest ${slowestFailure} ms); ${extra}`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(pool.output().slice(-4000));

    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(result.duplicates).toEqual([]);
    // No task failed for any reason but a lease whose holder is unknown: a lease reply
    // lost with the dropped connection (AcknowledgementTimeout), or, with pool
    // heartbeats, a beat missed during the outage (WorkerLost). The audit line counts them.
    expect(
      Object.keys(result.failed).filter(
        (r) => r !== 'AcknowledgementTimeout' && r !== 'WorkerLost',
      ),
    ).toEqual([]);
    // Enqueue during the outage: typed and fast, never a hang. One whose reply was lost
    // says so (its task may be stored); any other failure is the store being unreachable.
    const typed = [BackendUnavailableError.name, EnqueueOutcomeUnknownError.name];
    expect(run.failures.filter((f) => !typed.includes(f.name))).toEqual([]);
    // A task whose enqueue lost its reply was stored and settled, or never stored: never
    // left stuck, never run twice.
    const unknown = await audit(backend, run.unknown, journal);
    expect(unknown.stuck).toEqual([]);
    expect(unknown.duplicates).toEqual([]);
    expect(unknown.successWithoutRun).toEqual([]);
    expect(slowestFailure).toBeLessThan(ENQUEUE_BOUND_MS);
    // Scripts were loaded again wherever they were needed.
    expect(pool.output()).not.toContain('NOSCRIPT');
    expect(run.failures.filter((f) => f.message.includes('NOSCRIPT'))).toEqual([]);
    // The same children did all of it: nothing crashed or was restarted.
    expect(pool.liveChildren()).toEqual(children);
    expect(pool.output()).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  }

  it('a Redis restart (AOF, appendfsync always) loses no acknowledged enqueue, and the pool carries on', async () => {
    const { redis, alias, backend, pool, journal } = await setUp('restart');
    const children = pool.liveChildren();
    let downMs = 0;
    const restart = async (): Promise<void> => {
      const killedAt = Date.now();
      const exited = new Promise((resolve) => redis.process.once('exit', resolve));
      redis.process.kill('SIGKILL');
      await exited;
      // Stay down a while (the scenario's outage, not a wait for an event): long
      // enough that enqueues fail, children's acquires fail and the pool misses maintenance passes.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      // Same port, same directory: the server replays its append-only file.
      servers.push(await startRedisServer([...AOF, '--dir', redis.dir], redis.port));
      downMs = Date.now() - killedAt;
    };
    const run = await produce(backend, alias, journal, TASKS / 4, restart);
    // Enqueue works again after the restart (scripts reloaded, no NOSCRIPT)...
    expect(run.acknowledged.length).toBe(TASKS);
    // ...and during the outage it failed, typed and fast (checked in auditAfter).
    expect(run.failures.length).toBeGreaterThan(0);
    await auditAfter(
      'Redis restarted (kill -9, AOF always) mid-run',
      backend,
      pool,
      children,
      run,
      journal,
      `Redis was down ${downMs} ms`,
    );
  });

  it('CLIENT KILL of every connection mid-run: consumers and producer resume', async () => {
    const { redis, alias, backend, pool, journal } = await setUp('client-kill');
    const children = pool.liveChildren();
    let killedClients = 0;
    const clientKill = async (): Promise<void> => {
      const admin = new Redis(redis.url);
      try {
        // Every normal connection but this one: the producer's, the pool's, each
        // child's command connection, and any blocking ones (opened only when a
        // lane has found its queues empty, so not counted on below).
        killedClients = Number(await admin.client('KILL', 'TYPE', 'normal'));
      } finally {
        await admin.quit();
      }
    };
    const run = await produce(backend, alias, journal, TASKS / 4, clientKill);
    // The producer, the pool parent and both children each had a command connection.
    expect(killedClients).toBeGreaterThanOrEqual(4);
    expect(run.acknowledged.length).toBe(TASKS);
    await auditAfter(
      'CLIENT KILL TYPE normal mid-run',
      backend,
      pool,
      children,
      run,
      journal,
      `${killedClients} connections killed`,
    );
  });
});
