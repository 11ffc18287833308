import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { CHAOS_QUEUES, startPool, type RunningPool } from './chaos-harness';
import { runOutage } from './outage-scenario';
import type { StoreStage } from './store-stage';

// The outages (outage-scenario.ts) on a Redis of each test's own: a restart
// (AOF with appendfsync always, same port and directory) and CLIENT KILL of
// every connection. Scripts must be loaded again wherever they are needed.

const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];
/** Enqueue's bound while Redis is down comes from this, in the scenario. */
const CONNECT_TIMEOUT_MS = 1000;
/** How long Redis stays down in the restart scenario. */
const OUTAGE_MS = 2500;

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

  /** A Redis of the test's own, and the stage on it. */
  async function setUp(name: string): Promise<{ redis: RedisServerHandle; stage: StoreStage }> {
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
    const stage: StoreStage = {
      store: 'Redis',
      alias,
      backend,
      journal: join(journalDir, `${name}.log`),
      env: { REDIS_URL: redis.url, THREADMILL_ALIAS: alias },
      startPool: (args, env) => startPool(args, env, pools),
    };
    return { redis, stage };
  }

  it('a Redis restart (AOF, appendfsync always) loses no acknowledged enqueue, and the pool carries on', async () => {
    const { redis, stage } = await setUp('restart');
    await runOutage(stage, {
      name: 'restarted (kill -9, AOF always) mid-run',
      failsEnqueues: true,
      forbidden: 'NOSCRIPT',
      async disrupt() {
        const killedAt = Date.now();
        const exited = new Promise((resolve) => redis.process.once('exit', resolve));
        redis.process.kill('SIGKILL');
        await exited;
        // Stay down a while (the scenario's outage, not a wait for an event): long
        // enough that enqueues fail, children's acquires fail and the pool misses maintenance passes.
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        // Same port, same directory: the server replays its append-only file.
        servers.push(await startRedisServer([...AOF, '--dir', redis.dir], redis.port));
        return `Redis was down ${Date.now() - killedAt} ms`;
      },
    });
  });

  it('CLIENT KILL of every connection mid-run: consumers and producer resume', async () => {
    const { redis, stage } = await setUp('client-kill');
    let killedClients = 0;
    await runOutage(stage, {
      name: 'CLIENT KILL TYPE normal mid-run',
      failsEnqueues: false,
      forbidden: 'NOSCRIPT',
      async disrupt() {
        const admin = new Redis(redis.url);
        try {
          // Every normal connection but this one: the producer's, the pool's, each
          // child's command connection, and any blocking ones (opened only when a
          // lane has found its queues empty, so not counted on below).
          killedClients = Number(await admin.client('KILL', 'TYPE', 'normal'));
        } finally {
          await admin.quit();
        }
        return `${killedClients} connections killed`;
      },
    });
    // The producer, the pool parent and both children each had a command connection.
    expect(killedClients).toBeGreaterThanOrEqual(4);
  });
});
