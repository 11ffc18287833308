import Redis from 'ioredis';

import type { BenchRedisServer, CommandCalls, CommandStats } from './redis-server';

/** Commands the benchmark itself sends on the admin connection; never charged to a queue. */
const ADMIN_COMMANDS = new Set(['info', 'config', 'flushall', 'client', 'select', 'ping']);

/** The commands that run a Lua script: their `usec` includes every command the script runs. */
const SCRIPT_COMMANDS = ['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall'];

/** Commands that park the connection until work arrives; counted, but apart. */
const BLOCKING_COMMANDS = new Set([
  'blpop',
  'brpop',
  'blmove',
  'brpoplpush',
  'bzpopmin',
  'bzpopmax',
  'bzmpop',
  'blmpop',
  'xread',
  'xreadgroup',
]);

interface PipelineStream {
  isPipeline?: boolean;
}

/**
 * Counts what the clients of this process send to Redis, by wrapping ioredis'
 * `Redis.prototype.sendCommand` (BullMQ and the Threadmill backend both use
 * the one ioredis installed here, so both are seen the same way).
 *
 * A round trip is one request the client waits on: a command sent alone, or
 * one whole pipeline / MULTI (ioredis hands every command of a pipeline to
 * `sendCommand` with the same `isPipeline` stream, so a pipeline is counted
 * once). An EVALSHA that fails with NOSCRIPT and is resent as EVAL counts
 * twice, because it is two waits. The admin connection is never counted.
 */
export class RoundTripCounter {
  roundTrips = 0;
  commands = 0;
  blocking = 0;
  private readonly seenPipelines = new WeakSet<object>();
  private readonly ignored = new WeakSet<Redis>();
  /** The wrapped prototypes and their own sendCommand: one per ioredis copy the clients load. */
  private readonly originals = new Map<Redis, Redis['sendCommand']>();

  /**
   * Wraps `redisClass.prototype.sendCommand`: the ioredis installed here by
   * default, or another copy of it (a build with its own node_modules loads its
   * own ioredis, whose clients the default wrap would not see).
   */
  install(redisClass: typeof Redis = Redis): void {
    const prototype = redisClass.prototype;
    if (this.originals.has(prototype)) return;
    const original = prototype.sendCommand;
    this.originals.set(prototype, original);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const counter = this;
    prototype.sendCommand = function (
      this: Redis,
      command: Parameters<Redis['sendCommand']>[0],
      stream?: Parameters<Redis['sendCommand']>[1],
    ) {
      if (!counter.ignored.has(this)) counter.observe(command, stream);
      return original.call(this, command, stream);
    };
  }

  uninstall(): void {
    for (const [prototype, original] of this.originals) prototype.sendCommand = original;
    this.originals.clear();
  }

  ignore(client: Redis): void {
    this.ignored.add(client);
  }

  snapshot(): { roundTrips: number; commands: number; blocking: number } {
    return { roundTrips: this.roundTrips, commands: this.commands, blocking: this.blocking };
  }

  private observe(command: { name: string }, stream: unknown): void {
    this.commands++;
    const name = command.name.toLowerCase();
    if (BLOCKING_COMMANDS.has(name)) this.blocking++;
    const pipeline = stream as PipelineStream | undefined;
    if (pipeline?.isPipeline && typeof stream === 'object' && stream !== null) {
      if (this.seenPipelines.has(stream)) return;
      this.seenPipelines.add(stream);
    }
    this.roundTrips++;
  }
}

/** What one measured window cost, from the client and from the server. */
export interface WindowCost {
  /** Wall time of the window (s). */
  seconds: number;
  /** CPU of this (the consumer's) process, user + system (µs). */
  clientCpuMicros: number;
  /** CPU of redis-server (µs). */
  redisCpuMicros: number;
  /** Client-side requests waited on (see RoundTripCounter). */
  roundTrips: number;
  /** Blocking commands among them (idle waits). */
  blockingCalls: number;
  /** Commands Redis executed, those inside Lua included (INFO commandstats). */
  redisCommands: number;
  /** The same, per command name. */
  redisCommandCalls: CommandCalls;
  /** Redis's own time running scripts (INFO commandstats `usec`), without the round trips (µs). */
  scriptMicros: number;
}

/**
 * Measures one window: wall time, this process's CPU, Redis's CPU, round
 * trips and the `INFO commandstats` delta. The INFO calls themselves happen
 * outside the timed part.
 */
export class CostMeter {
  constructor(
    private readonly server: BenchRedisServer,
    private readonly counter: RoundTripCounter,
  ) {}

  async measure<T>(work: () => Promise<T>): Promise<{ result: T; cost: WindowCost }> {
    const statsBefore = await this.server.commandStats();
    const redisCpuBefore = await this.server.cpuSeconds();
    const trips = this.counter.snapshot();
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const result = await work();
    const elapsedNs = process.hrtime.bigint() - started;
    const cpuDelta = process.cpuUsage(cpu);
    const tripsAfter = this.counter.snapshot();
    const redisCpuAfter = await this.server.cpuSeconds();
    const statsAfter = await this.server.commandStats();
    const redisCommandCalls = diffCalls(statsBefore, statsAfter);
    return {
      result,
      cost: {
        seconds: Number(elapsedNs) / 1e9,
        clientCpuMicros: cpuDelta.user + cpuDelta.system,
        redisCpuMicros: (redisCpuAfter - redisCpuBefore) * 1e6,
        roundTrips: tripsAfter.roundTrips - trips.roundTrips,
        blockingCalls: tripsAfter.blocking - trips.blocking,
        redisCommands: Object.values(redisCommandCalls).reduce((sum, n) => sum + n, 0),
        redisCommandCalls,
        scriptMicros: SCRIPT_COMMANDS.reduce(
          (sum, name) => sum + (statsAfter[name]?.usec ?? 0) - (statsBefore[name]?.usec ?? 0),
          0,
        ),
      },
    };
  }
}

function diffCalls(before: CommandStats, after: CommandStats): CommandCalls {
  const delta: CommandCalls = {};
  for (const [name, { calls }] of Object.entries(after)) {
    if (ADMIN_COMMANDS.has(name)) continue;
    const n = calls - (before[name]?.calls ?? 0);
    if (n > 0) delta[name] = n;
  }
  return delta;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}
