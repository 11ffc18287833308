import { Client } from 'pg';

import type { BenchPostgresServer } from './bench-postgres-server';

/** What one measured window cost, on the client and on the server. */
export interface PostgresWindowCost {
  /** Wall time (s). */
  seconds: number;
  /** CPU of this process, user + system (µs). */
  clientCpuMicros: number;
  /** CPU of every Postgres process (µs); null on a server of PG_URL. */
  dbCpuMicros: number | null;
  /** WAL written (bytes). */
  walBytes: number;
  /** Statements sent and waited on by the benchmarked clients (node-postgres has no pipelining: one each). */
  roundTrips: number;
}

type Query = Client['query'];

/**
 * Counts the statements the clients of this process send, by wrapping
 * node-postgres' `Client.prototype.query`, which every library here goes
 * through (pools included). The server's admin connection is not counted.
 */
export class PostgresQueryCounter {
  count = 0;
  private original: Query | null = null;

  install(): void {
    if (this.original) return;
    const original = (this.original = Client.prototype.query);
    const seen = (client: Client): void => {
      if (!isAdmin(client)) this.count++;
    };
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      seen(this);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as Query;
  }

  uninstall(): void {
    if (this.original) Client.prototype.query = this.original;
    this.original = null;
  }
}

const ADMIN = Symbol('bench admin connection');

/** Marks the benchmark's own connection, whose statements are never charged to a library. */
export function markAdmin(client: Client): void {
  (client as unknown as Record<symbol, boolean>)[ADMIN] = true;
}

function isAdmin(client: Client): boolean {
  return (client as unknown as Record<symbol, boolean>)[ADMIN] === true;
}

/** Measures one window: wall time, this process's CPU, the server's CPU and WAL, statements sent. */
export class PostgresCostMeter {
  constructor(
    private readonly server: BenchPostgresServer,
    private readonly counter: PostgresQueryCounter,
  ) {}

  async measure<T>(work: () => Promise<T>): Promise<{ result: T; cost: PostgresWindowCost }> {
    const walBefore = await this.server.walBytes();
    const dbCpuBefore = this.server.cpuMicros();
    const queries = this.counter.count;
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const result = await work();
    const elapsedNs = process.hrtime.bigint() - started;
    const cpuDelta = process.cpuUsage(cpu);
    const sent = this.counter.count - queries;
    const dbCpuAfter = this.server.cpuMicros();
    const walAfter = await this.server.walBytes();
    return {
      result,
      cost: {
        seconds: Number(elapsedNs) / 1e9,
        clientCpuMicros: cpuDelta.user + cpuDelta.system,
        dbCpuMicros: dbCpuBefore === null || dbCpuAfter === null ? null : dbCpuAfter - dbCpuBefore,
        walBytes: walAfter - walBefore,
        roundTrips: sent,
      },
    };
  }
}
