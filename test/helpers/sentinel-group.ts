import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';

import { BlackholeProxy } from './blackhole-proxy';
import { freePort } from './free-port';
import { startRedisServer, waitForRedis, type RedisServerHandle } from './redis-server';
import { waitFor } from './wait-for';

/** The primary's name in the sentinels' configuration. */
export const SENTINEL_PRIMARY = 'mymaster';

/**
 * A primary, one replica and three sentinels on loopback ports, each a
 * redis-server of its own (the sentinels in sentinel mode, their conf files
 * in a folder of their own). The replica reaches the primary through a
 * BlackholeProxy, so a test can make it lag (`proxy.blackhole()`: the
 * replication stream is held on the way) and then lose what was held
 * (`proxy.close()`), as a replica behind on a slow link loses it when its
 * primary dies. `stop()` kills every process and removes every folder.
 */
export interface SentinelGroup {
  /** The primary the group started with. */
  readonly primary: RedisServerHandle;
  readonly replica: RedisServerHandle;
  /** Between the replica and the first primary. */
  readonly proxy: BlackholeProxy;
  /** `host:port` of each sentinel, as REDIS_SENTINELS and `sentinel.nodes` take them. */
  readonly nodes: string[];
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** Kills the first primary (SIGKILL) and cuts the replica off what the proxy held. */
  killPrimary(): Promise<void>;
  /** Resolves once the replica has everything the primary has written so far. */
  replicaCaughtUp(): Promise<void>;
  /**
   * Starts the first primary again, empty, on its port, as a replica of the
   * promoted one, once the sentinels have promoted it (as an operator brings
   * a failed server back). Resolves once it replicates.
   */
  restartOldPrimaryAsReplica(): Promise<RedisServerHandle>;
  stop(): Promise<void>;
}

const DOWN_AFTER_MS = 3000;
// A failover that fails is tried again only after twice this; the sentinels also leave
// a replica that follows another address than its primary's (the proxy) alone this long.
const FAILOVER_TIMEOUT_MS = 120_000;

export async function startSentinelGroup(): Promise<SentinelGroup> {
  const servers: RedisServerHandle[] = [];
  const sentinels: ChildProcess[] = [];
  const admins: Redis[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-sentinel-'));
  let proxy: BlackholeProxy | undefined;
  const stop = async (): Promise<void> => {
    for (const admin of admins.splice(0)) admin.disconnect();
    for (const sentinel of sentinels.splice(0)) await kill(sentinel);
    for (const server of servers.splice(0)) await server.stop();
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = await startRedisServer();
    servers.push(primary);
    proxy = await BlackholeProxy.start(primary.port);
    const replica = await startRedisServer(['--replicaof', '127.0.0.1', String(proxy.port)]);
    servers.push(replica);
    await replicating(replica.port, admins);
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_PRIMARY} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_PRIMARY} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_PRIMARY} ${FAILOVER_TIMEOUT_MS}`,
          `sentinel parallel-syncs ${SENTINEL_PRIMARY} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
      await waitForRedis(port);
      ports.push(port);
    }
    const asked = new Redis(ports[0], '127.0.0.1', { lazyConnect: true });
    admins.push(asked);
    // Every sentinel must know the other two and the replica before a failover can happen.
    for (const port of ports) {
      const sentinel = new Redis(port, '127.0.0.1', { lazyConnect: true });
      admins.push(sentinel);
      await waitFor(
        async () => {
          const [peers, replicas] = await Promise.all([
            sentinel.call('SENTINEL', 'SENTINELS', SENTINEL_PRIMARY) as Promise<unknown[]>,
            sentinel.call('SENTINEL', 'REPLICAS', SENTINEL_PRIMARY) as Promise<unknown[]>,
          ]);
          return peers.length === 2 && replicas.length === 1;
        },
        { timeoutMs: 30_000, what: `sentinel ${port} to know its peers and the replica` },
      );
    }
    const primaryPort = async (): Promise<number> => {
      const [, port] = (await asked.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        SENTINEL_PRIMARY,
      )) as [string, string];
      return Number(port);
    };
    return {
      primary,
      replica,
      proxy,
      nodes: ports.map((port) => `127.0.0.1:${port}`),
      primaryPort,
      async killPrimary() {
        await kill(primary.process);
        await proxy?.close();
      },
      async replicaCaughtUp() {
        const primaryAdmin = new Redis(primary.port, '127.0.0.1', { lazyConnect: true });
        const replicaAdmin = new Redis(replica.port, '127.0.0.1', { lazyConnect: true });
        admins.push(primaryAdmin, replicaAdmin);
        const offset = (info: string, field: string): number =>
          Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
        const written = offset(await primaryAdmin.info('replication'), 'master_repl_offset');
        await waitFor(
          async () =>
            offset(await replicaAdmin.info('replication'), 'slave_repl_offset') >= written,
          { what: 'the replica to catch up with the primary' },
        );
      },
      async restartOldPrimaryAsReplica() {
        await waitFor(async () => (await primaryPort()) === replica.port, {
          timeoutMs: 30_000,
          what: 'the sentinels to promote the replica',
        });
        const restarted = await startRedisServer(
          ['--replicaof', '127.0.0.1', String(replica.port)],
          primary.port,
        );
        servers.push(restarted);
        await replicating(restarted.port, admins, 60_000);
        return restarted;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Resolves once the server on `port` is a replica whose link to its primary is
 * up; a timeout names the replication fields it last saw.
 */
async function replicating(port: number, admins: Redis[], timeoutMs = 10_000): Promise<void> {
  const admin = new Redis(port, '127.0.0.1', { lazyConnect: true });
  admins.push(admin);
  await waitFor(
    async () => {
      const info = await admin.info('replication');
      if (info.includes('master_link_status:up')) return true;
      const seen = info
        .split(/\r?\n/)
        .filter((line) => /^(role|master_host|master_port|master_link|master_sync)/.test(line));
      throw new Error(seen.join(' '));
    },
    { timeoutMs, what: `the server on port ${port} to replicate` },
  );
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
