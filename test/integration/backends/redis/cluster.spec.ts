import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { Cluster, Redis } from 'ioredis';
import { Client } from 'pg';

import { redisBackendConfigFromEnv } from '../../../../lib/backends/redis/redis-backend-config.factory';
import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import type { TaskBackend } from '../../../../lib/core/task-backend.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { freePort } from '../../../helpers/free-port';
import { aliasKeys, removeAliasKeys } from '../../../helpers/redis-cleanup';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { readyRecord, succeeded } from './redis-fixture';
import { pgTransaction } from '../../../../lib/backends/postgres';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { createTestSchema } from '../../../helpers/postgres-schema';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

const run = promisify(execFile);

/** Which master serves a key's slot (host:port), from CLUSTER SLOTS. */
async function ownerOf(node: Redis, key: string): Promise<string> {
  const slot = await node.cluster('KEYSLOT', key);
  const slots = await node.cluster('SLOTS');
  const range = slots.find(([from, to]) => slot >= from && slot <= to);
  return range ? `${range[2][0]}:${range[2][1]}` : 'none';
}

describe('RedisBackend on a 3-master Redis Cluster', () => {
  const servers: RedisServerHandle[] = [];
  let seeds: string[];
  let admin: Cluster;
  let probe: Redis;
  const aliases: string[] = [];
  const backends: TaskBackend[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      servers.push(
        await startRedisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf', // relative to the server's own --dir
          '--cluster-node-timeout',
          '2000',
          // A bus port of its own: the default (port + 10000) is past 65535 for a
          // free port above 55535, and may be taken by anything else.
          '--cluster-port',
          String(await freePort()),
        ]),
      );
    }
    seeds = servers.map((server) => `127.0.0.1:${server.port}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...seeds,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const nodes = servers.map((server) => new Redis(server.url));
    try {
      await waitFor(
        async () => {
          const infos = await Promise.all(nodes.map((node) => node.cluster('INFO')));
          return infos.every((info) => String(info).includes('cluster_state:ok'));
        },
        { what: 'cluster_state:ok on every node' },
      );
    } finally {
      nodes.forEach((node) => node.disconnect());
    }
    admin = new Cluster(
      seeds.map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })),
    );
    probe = new Redis(servers[0].url);
  }, 30_000);

  afterAll(async () => {
    for (const backend of backends) await backend.close();
    try {
      for (const alias of aliases) await removeAliasKeys(admin, alias);
    } finally {
      await admin?.quit();
      probe?.disconnect();
      for (const server of servers) await server.stop();
    }
  });

  it('runs enqueue, acquire, acknowledge, maintenance and telemetry on two aliases on different shards', async () => {
    const first = testAlias();
    let second = testAlias();
    const firstOwner = await ownerOf(probe, new RedisKeys(first).sequence);
    for (let tries = 0; tries < 50; tries++) {
      if ((await ownerOf(probe, new RedisKeys(second).sequence)) !== firstOwner) break;
      second = testAlias();
    }
    expect(await ownerOf(probe, new RedisKeys(second).sequence)).not.toBe(firstOwner);
    aliases.push(first, second);

    // One alias built from REDIS_CLUSTER_NODES (the sample's way), one on a Cluster client handed in.
    const fromEnv = redisBackendConfigFromEnv({
      queues: ['default', 'emails'],
      options: { leaseTtl: 100 },
      env: { REDIS_CLUSTER_NODES: seeds.join(',') },
    });
    const clientOwned = new Cluster([{ host: '127.0.0.1', port: servers[1].port }]);
    const pair = [
      new RedisBackend(first, fromEnv, storeRules),
      new RedisBackend(
        second,
        {
          backend: RedisBackend,
          queues: ['default', 'emails'],
          options: { client: clientOwned, leaseTtl: 100 },
        },
        storeRules,
      ),
    ];
    backends.push(...pair);

    for (const backend of pair) {
      const alias = backend.alias;
      const waiting = backend.leases.acquire(['emails', 'default'], {
        workerId: 'w',
        timeoutMs: 5000,
      });
      const records = await backend.tasks.enqueueMany([
        readyRecord(alias, { args: [1] }),
        readyRecord(alias, { args: [2] }),
      ]);
      await backend.tasks.enqueue(readyRecord(alias, { runAfter: new Date(Date.now() + 20) }));
      const [woken] = await waiting;
      expect(woken.id).toBe(records[0].id);
      const [second] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
      await expect(backend.leases.acknowledge([succeeded(woken, 'ok')])).resolves.toEqual([
        'acknowledged',
      ]);
      await waitFor(() => Date.now() > second.startedAt!.getTime() + 110, {
        what: 'the second lease to end',
      });
      const report = await runMaintenancePass(backend);
      expect(report).toMatchObject({ promoted: 1, reaped: 1, failedSteps: [] });
      await expect(backend.tasks.getResult(second.id)).resolves.toMatchObject({
        status: TaskResultStatus.FAILED,
      });
      const telemetry = await backend.reads.telemetry(60_000);
      expect(telemetry.queues.default.counts).toEqual({
        ready: 1,
        running: 0,
        deferred: 0,
        successful: 1,
        failed: 1,
        cancelled: 0,
      });
      expect((await backend.reads.peek('default', 'successful', 5)).map((r) => r.id)).toEqual([
        woken.id,
      ]);
      await expect(backend.reads.maintenanceHeartbeat()).resolves.toBeInstanceOf(Date);
      // Every key of the alias sits in one slot, so every script ran on one shard.
      const keys = await aliasKeys(admin, alias);
      const slots = new Set(await Promise.all(keys.map((key) => probe.cluster('KEYSLOT', key))));
      expect(slots.size).toBe(1);
    }

    for (const backend of pair) await backend.close();
    await expect(clientOwned.ping()).resolves.toBe('PONG');
    await clientOwned.quit();
  }, 20_000);

  it("moves an outbox's tasks, keyed or not, with its relay's generation, on the alias's shard", async () => {
    const alias = testAlias();
    aliases.push(alias);
    const keys = new RedisKeys(alias);
    const schema = await createTestSchema();
    const app = new Client({ connectionString: testPostgresUrl() });
    await app.connect();
    const outbox = { url: testPostgresUrl(), schema: schema.name, pollInterval: 100 };
    const backend = new RedisBackend(
      alias,
      { backend: RedisBackend, queues: ['default'], options: { clusterNodes: seeds, outbox } },
      storeRules,
    );
    backends.push(backend);
    try {
      const plain = readyRecord(alias);
      const record = readyRecord(alias);
      const keyed: TaskRecord = {
        ...record,
        task: { ...record.task, unique: { key: 'k', mode: 'unfinished' } },
      };
      await app.query('BEGIN');
      await backend.tasks.enqueueInTransaction!(pgTransaction(app), [plain, keyed]);
      await app.query('COMMIT');
      await waitFor(async () => (await admin.zcard(keys.queue('default'))) === 2, {
        what: 'both tasks moved',
      });
      await expect(admin.get(keys.outboxGeneration)).resolves.toBe('1');
      await expect(admin.get(keys.moved(keyed.id))).resolves.toBe(keyed.id);
      const slots = new Set(
        await Promise.all(
          (await aliasKeys(admin, alias)).map((key) => probe.cluster('KEYSLOT', key)),
        ),
      );
      expect(slots.size).toBe(1);
    } finally {
      await backend.close();
      await app.end();
      await schema.drop();
    }
  }, 20_000);

  it('runs its #!lua scripts by EVALSHA, and refuses a cluster with one master that evicts', async () => {
    const alias = testAlias();
    aliases.push(alias);
    const config = redisBackendConfigFromEnv({ env: { REDIS_CLUSTER_NODES: seeds.join(',') } });
    const owner = await ownerOf(probe, new RedisKeys(alias).sequence);
    const node = new Redis(`redis://${owner}`);
    try {
      const evalshaCalls = async () =>
        Number(/cmdstat_evalsha:calls=(\d+)/.exec(await node.info('commandstats'))?.[1] ?? 0);
      const working = new RedisBackend(alias, config, storeRules);
      backends.push(working);
      await working.tasks.enqueue(readyRecord(alias));
      const before = await evalshaCalls();
      await working.tasks.enqueue(readyRecord(alias));
      // The second enqueue went by its SHA1: the script, #!lua line and all, was cached.
      expect((await evalshaCalls()) - before).toBe(1);
      // Every master is checked, not only the one a command happens to reach.
      const other = servers.find((server) => `127.0.0.1:${server.port}` !== owner)!;
      const evicting = new Redis(other.url);
      await evicting.config('SET', 'maxmemory-policy', 'allkeys-lru');
      try {
        const refused = new RedisBackend(testAlias(), config, storeRules);
        backends.push(refused);
        await expect(refused.ping()).rejects.toThrow(/maxmemory-policy is allkeys-lru/);
      } finally {
        await evicting.config('SET', 'maxmemory-policy', 'noeviction');
        await evicting.quit();
      }
    } finally {
      await node.quit();
    }
  });
});
