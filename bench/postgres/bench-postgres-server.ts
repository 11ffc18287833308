import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from 'pg';

import { startPostgresServer, type PostgresServerHandle } from '../../test/helpers/postgres-server';
import { markAdmin } from './postgres-cost-meter';
import { processCpuTicks, TICKS_PER_SECOND } from './proc-stat';

/** How long a drop waits for a library's sessions to end, and how often it looks. */
const SESSIONS_GONE_MS = 10_000;
const SESSIONS_POLL_MS = 20;

/**
 * Settings of the private cluster. fsync off (the helper's default): we
 * measure the queues, not the disk, as the Redis rows run without
 * persistence. full_page_writes stays on so the WAL bytes per task are what a
 * production server writes; max_connections leaves room for four libraries'
 * pools and a 100-slot drain of each.
 */
const SETTINGS = { full_page_writes: 'on', max_connections: 400 } as const;

/**
 * The one Postgres of a benchmark run: a private cluster started for it
 * (initdb and pg_ctl, as the tests' harness starts one), or PG_URL when set.
 * Each library gets databases of its own, made and dropped here under names
 * no one else uses, so nothing the run did not create is ever dropped. An
 * admin connection, never counted, reads the server's counters.
 */
export class BenchPostgresServer {
  private constructor(
    /** postgres://... of the maintenance database; a database's url is derived from it. */
    private readonly baseUrl: string,
    private readonly admin: Client,
    private readonly handle: PostgresServerHandle | null,
    private readonly created = new Set<string>(),
  ) {}

  static async start(): Promise<BenchPostgresServer> {
    const given = process.env.PG_URL;
    const handle = given ? null : await startPostgresServer({ settings: SETTINGS });
    const baseUrl = given ?? handle!.url;
    const admin = new Client({ connectionString: baseUrl });
    markAdmin(admin);
    try {
      await admin.connect();
    } catch (error) {
      await handle?.remove();
      throw error;
    }
    return new BenchPostgresServer(baseUrl, admin, handle);
  }

  /** Whether the server is one this run started (its CPU is read from /proc only then). */
  get isPrivate(): boolean {
    return this.handle !== null;
  }

  /** Where it is, without any password. */
  get shownUrl(): string {
    const url = new URL(this.baseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  }

  async version(): Promise<string> {
    const { rows } = await this.admin.query<{ v: string }>(
      `SELECT current_setting('server_version') AS v`,
    );
    return rows[0].v.split(' ')[0];
  }

  /** A new empty database of a name unique to this run; its url. */
  async createDatabase(prefix: string): Promise<{ name: string; url: string }> {
    const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await this.admin.query(`CREATE DATABASE ${name}`);
    this.created.add(name);
    const url = new URL(this.baseUrl);
    url.pathname = `/${name}`;
    return { name, url: url.toString() };
  }

  /**
   * Drops a database this run created. Its library has closed its
   * connections by now, but a session can outlive the client's end by a
   * moment: ending it by force would surface in the library as a lost
   * connection (pg-boss's pool, with no listener left, throws it), so the
   * drop first waits a bounded time for them to go.
   */
  async dropDatabase(name: string): Promise<void> {
    if (!this.created.has(name)) throw new Error(`${name} was not created by this benchmark run`);
    const deadline = performance.now() + SESSIONS_GONE_MS;
    while ((await this.sessions(name)) > 0 && performance.now() < deadline) {
      await sleep(SESSIONS_POLL_MS);
    }
    await this.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    this.created.delete(name);
  }

  /** Sessions connected to a database: none should be left once its library disconnected. */
  async sessions(database: string): Promise<number> {
    const { rows } = await this.admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    return rows[0].n;
  }

  /** The WAL's current position, in bytes from its start. */
  async walBytes(): Promise<number> {
    const { rows } = await this.admin.query<{ b: string }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS b`,
    );
    return Number(rows[0].b);
  }

  /**
   * CPU of the whole server so far (µs): the postmaster and every live
   * backend, plus the backends that exited (the postmaster reaps them, so
   * their time is in its children's counters). null on a server of PG_URL.
   */
  cpuMicros(): number | null {
    if (!this.handle) return null;
    const postmaster = Number(
      readFileSync(join(this.handle.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const stat = processCpuTicks(pid);
      if (stat === null) continue; // exited since the listing
      if (pid === postmaster) ticks += stat.own + stat.reapedChildren;
      else if (stat.parent === postmaster) ticks += stat.own;
    }
    return (ticks / TICKS_PER_SECOND) * 1e6;
  }

  /** Drops what is left of this run's databases, then stops the private cluster (if one) and removes it. */
  async stop(): Promise<void> {
    try {
      for (const name of [...this.created]) await this.dropDatabase(name);
    } finally {
      await this.admin.end();
      await this.handle?.remove();
    }
  }
}
