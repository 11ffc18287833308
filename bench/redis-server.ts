import { setTimeout as sleep } from 'node:timers/promises';

import Redis from 'ioredis';

import { startRedisServer, type RedisServerHandle } from '../test/helpers/redis-server';

/** INFO sections parsed into `field -> value` (numbers where they are numbers). */
export type InfoFields = Record<string, string>;

/** Per-command counters of `INFO commandstats`, `calls` only. */
export type CommandCalls = Record<string, number>;

/**
 * Per-command counters of `INFO commandstats`: calls, and the microseconds
 * Redis spent running them (a script's include the commands it ran, which
 * are also counted under their own names).
 */
export type CommandStats = Record<string, { calls: number; usec: number }>;

/** The server's timer rate while it settles: each tick gives its tables 1 ms of resizing. */
const SETTLE_HZ = 500;
const SETTLE_POLL_MS = 50;
/** Far beyond the ~10 s a million-task keyspace needs at SETTLE_HZ on this kind of machine. */
const SETTLE_LIMIT_MS = 180_000;

/**
 * A private redis-server for one benchmark run, plus an admin connection the
 * benchmark never counts. Only a server this process started is ever flushed:
 * there is no way to point it at someone else's Redis.
 */
export class BenchRedisServer {
  private constructor(
    private readonly handle: RedisServerHandle,
    readonly admin: Redis,
  ) {}

  static async start(): Promise<BenchRedisServer> {
    // Snapshots and AOF off (the helper's defaults): we measure the queue, not fsync.
    // DEBUG HTSTATS tells settle() when the keyspace tables are done resizing.
    const handle = await startRedisServer(['--enable-debug-command', 'local']);
    const admin = new Redis(handle.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await admin.connect();
    } catch (error) {
      admin.disconnect();
      await handle.stop();
      throw error;
    }
    return new BenchRedisServer(handle, admin);
  }

  get url(): string {
    return this.handle.url;
  }

  get pid(): number | undefined {
    return this.handle.process.pid;
  }

  async version(): Promise<string> {
    return (await this.info('server')).redis_version ?? 'unknown';
  }

  /** Empties the private server between scenarios, so each starts from the same state. */
  async reset(): Promise<void> {
    await this.admin.flushall('SYNC');
    await this.admin.config('RESETSTAT');
  }

  /**
   * A bare round trip to this server, as a client sees it: the median of
   * `samples` PINGs sent one after the other on the admin connection (µs).
   */
  async roundTripMicros(samples: number): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const sent = process.hrtime.bigint();
      await this.admin.ping();
      times.push(Number(process.hrtime.bigint() - sent) / 1000);
    }
    times.sort((a, b) => a - b);
    return times[times.length >> 1];
  }

  /**
   * Waits until no keyspace table of the server is being resized, and resolves
   * with the milliseconds that took. Redis grows a table by moving its entries
   * over a little at a time, and until the move is done every command that
   * touches the table pays for it. A fill that crosses a power of two of keys
   * (a million-task fill crosses 2^20) leaves such a move that takes minutes
   * at the default hz of 10, and slows a drain run on it by half. A queue
   * that has held a backlog for a while has no such move going, so each drain
   * starts once the move is done, for every library alike; meanwhile the
   * server's timer runs at SETTLE_HZ, which finishes the move in seconds.
   */
  async settle(): Promise<number> {
    const started = performance.now();
    if (!(await this.resizing())) return 0;
    const [, hz] = (await this.admin.config('GET', 'hz')) as [string, string];
    await this.admin.config('SET', 'hz', String(SETTLE_HZ));
    try {
      while (await this.resizing()) {
        if (performance.now() - started > SETTLE_LIMIT_MS) {
          throw new Error(`redis-server still resizing its tables after ${SETTLE_LIMIT_MS} ms`);
        }
        await sleep(SETTLE_POLL_MS);
      }
    } finally {
      await this.admin.config('SET', 'hz', hz);
    }
    return performance.now() - started;
  }

  private async resizing(): Promise<boolean> {
    for (const db of Object.keys(await this.info('keyspace'))) {
      const stats = String(await this.admin.call('DEBUG', 'HTSTATS', db.slice('db'.length)));
      if (stats.includes('rehashing target')) return true;
    }
    return false;
  }

  async info(section: string): Promise<InfoFields> {
    const text = await this.admin.info(section);
    const fields: InfoFields = {};
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
    }
    return fields;
  }

  /** `calls` and `usec` per command (lower case, `cmdstat_` stripped), commands run inside Lua included. */
  async commandStats(): Promise<CommandStats> {
    const stats: CommandStats = {};
    for (const [field, value] of Object.entries(await this.info('commandstats'))) {
      const match = /calls=(\d+),usec=(\d+)/.exec(value);
      if (field.startsWith('cmdstat_') && match) {
        stats[field.slice(8)] = { calls: Number(match[1]), usec: Number(match[2]) };
      }
    }
    return stats;
  }

  async usedMemory(): Promise<number> {
    return Number((await this.info('memory')).used_memory);
  }

  /** Seconds of CPU (user + system) the server has used so far. */
  async cpuSeconds(): Promise<number> {
    const cpu = await this.info('cpu');
    return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys);
  }

  async stop(): Promise<void> {
    this.admin.disconnect();
    await this.handle.stop();
  }
}
