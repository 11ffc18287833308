import Redis from 'ioredis';

import { startRedisServer, type RedisServerHandle } from '../test/helpers/redis-server';

/** INFO sections parsed into `field -> value` (numbers where they are numbers). */
export type InfoFields = Record<string, string>;

/** Per-command counters of `INFO commandstats`, `calls` only. */
export type CommandCalls = Record<string, number>;

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
    const handle = await startRedisServer();
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

  async info(section: string): Promise<InfoFields> {
    const text = await this.admin.info(section);
    const fields: InfoFields = {};
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
    }
    return fields;
  }

  /** `calls` per command (lower case, `cmdstat_` stripped), commands run inside Lua included. */
  async commandCalls(): Promise<CommandCalls> {
    const calls: CommandCalls = {};
    for (const [field, value] of Object.entries(await this.info('commandstats'))) {
      const match = /calls=(\d+)/.exec(value);
      if (field.startsWith('cmdstat_') && match) calls[field.slice(8)] = Number(match[1]);
    }
    return calls;
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
