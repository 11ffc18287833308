import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from './free-port';

const run = promisify(execFile);

/** Where Debian's postgresql packages put each major version's server binaries. */
const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
/** Starts tried on a port found free, each on another one, before the failure is thrown. */
const BIND_TRIES = 5;

export interface PostgresServerOptions {
  /** A port to listen on; a free loopback port when left out. */
  readonly port?: number;
  /** Where a free port comes from when `port` is left out (freePort). */
  readonly freePort?: () => Promise<number>;
  /**
   * Trade surviving a crash of the machine (never tested here) for speed:
   * fsync and full_page_writes off, and initdb does not sync. A crash of
   * Postgres itself (`stop({ mode: 'immediate' })`) still loses nothing
   * committed, since each commit's WAL reaches the kernel before it returns:
   * synchronous_commit stays on, as turning it off would lose the last
   * commits in such a crash. On unless set to false.
   */
  readonly fast?: boolean;
  /** More postgresql.conf settings, e.g. `{ max_connections: 200 }`; they win over the above. */
  readonly settings?: Readonly<Record<string, string | number>>;
  /**
   * Where the WAL goes (initdb --waldir: pg_wal becomes a link to it), e.g.
   * a small disk of its own, with segments of `walSegmentMb` (initdb's 16 when left out).
   */
  readonly wal?: { readonly dir: string; readonly segmentMb?: number };
}

export interface PostgresStopOptions {
  /**
   * `fast` (the default) rolls back open transactions and shuts down cleanly;
   * `immediate` quits at once, as a crash does, and the next start recovers
   * from the WAL.
   */
  readonly mode?: 'fast' | 'immediate';
}

export interface PostgresServerHandle {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust auth, no password). */
  readonly url: string;
  /** The temp folder holding the data directory, the socket and the log. */
  readonly dir: string;
  /** Starts it again on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and waits until it is gone. */
  stop(options?: PostgresStopOptions): Promise<void>;
  /** Stops it if it runs, then deletes its folder: nothing of it is left. Again, does nothing. */
  remove(): Promise<void>;
}

/**
 * The bin folder of the newest major version under `root` (Debian's layout,
 * `<root>/<version>/bin`) that has both initdb and pg_ctl.
 */
export function postgresBinDir(root: string = DEBIAN_POSTGRES_ROOT): string {
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+(\.\d+)?$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  throw new Error(
    `no PostgreSQL server binaries (initdb and pg_ctl) under ${root}/<version>/bin: ` +
      'install them with `apt-get install -y postgresql`, or set PG_URL to a Postgres the tests may use',
  );
}

/** The uid and gid of the `postgres` user, as whom root runs initdb and pg_ctl. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  try {
    const [uid, gid] = await Promise.all([
      run('id', ['-u', 'postgres']),
      run('id', ['-g', 'postgres']),
    ]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch (error) {
    throw new Error(
      'initdb and pg_ctl refuse to run as root, and there is no `postgres` user to run them as ' +
        `(Debian's postgresql package creates it: apt-get install -y postgresql): ${String(error)}`,
    );
  }
}

/** The settings every private cluster gets (its port aside), then the speed settings, then the caller's. */
function configLines(
  socketDir: string,
  fast: boolean,
  settings: Readonly<Record<string, string | number>>,
): string {
  const all: Record<string, string | number> = {
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${socketDir}'`,
    ...(fast ? { fsync: 'off', full_page_writes: 'off' } : {}),
  };
  for (const [name, value] of Object.entries(settings))
    all[name] = typeof value === 'number' ? value : `'${value.replaceAll("'", "''")}'`;
  return `\n${Object.entries(all)
    .map(([name, value]) => `${name} = ${value}`)
    .join('\n')}\n`;
}

/**
 * Start a private Postgres cluster with Debian's binaries: initdb (trust
 * auth, superuser `postgres`) in a fresh temp folder, listening only on
 * 127.0.0.1 on a free port, its unix socket in that folder too. The port is
 * found free once initdb is done, just before the start: found before, it
 * stayed free for seconds in which anything could take it (another
 * server, or a connection's own end, from the same range); and a start
 * that still finds it taken tries another, BIND_TRIES times. As root
 * (initdb and pg_ctl refuse to run as root) they run as the `postgres` user,
 * who then owns the folder. Resolves once it accepts connections; if any
 * step fails, whatever was made is removed before the error is thrown.
 */
export async function startPostgresServer(
  options: PostgresServerOptions = {},
): Promise<PostgresServerHandle> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  let port = options.port ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-postgres-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');

  /** Runs one of the server's binaries, as `postgres` when this process is root. */
  const invoke = (name: string, args: string[]) => {
    const path = join(bin, name);
    // Run in the folder: `postgres` may not be allowed into this process's cwd.
    return asRoot
      ? run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: dir })
      : run(path, args, { cwd: dir });
  };
  /** As invoke, failing with what the binary said and the server's log. */
  const tool = async (name: string, args: string[]): Promise<void> => {
    try {
      await invoke(name, args);
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      const log = existsSync(logFile) ? (await readFile(logFile, 'utf8')).trim() : '';
      throw new Error(
        `\`${name} ${args.join(' ')}\` failed: ${stderr?.trim() || String(error)}` +
          (log ? `\n--- ${logFile} ---\n${log}` : ''),
      );
    }
  };
  const pgCtl = (...args: string[]) => tool('pg_ctl', [...args, '-D', dataDir]);

  /** Whether a server runs on the data directory (not just whether a postmaster.pid is left). */
  const runs = async (): Promise<boolean> => {
    try {
      await invoke('pg_ctl', ['status', '-D', dataDir]);
      return true;
    } catch (error) {
      // 3: no server runs (a stale postmaster.pid included); 4: no data directory yet.
      const { code } = error as { code?: unknown };
      if (code === 3 || code === 4) return false;
      throw error;
    }
  };

  const handle: PostgresServerHandle = {
    get port() {
      return port;
    },
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    dir,
    start: () => pgCtl('start', '-w', '-t', '60', '-l', logFile),
    stop: ({ mode = 'fast' } = {}) => pgCtl('stop', '-w', '-t', '60', '-m', mode),
    async remove() {
      if (!existsSync(dir)) return; // removed already
      if (await runs()) await handle.stop({ mode: 'immediate' });
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const fast = options.fast ?? true;
    await tool('initdb', [
      '-D',
      dataDir,
      '--auth=trust',
      '-U',
      'postgres',
      '--encoding=UTF8',
      '--locale=C',
      ...(fast ? ['--no-sync'] : []),
      ...(options.wal ? [`--waldir=${options.wal.dir}`] : []),
      ...(options.wal?.segmentMb ? [`--wal-segsize=${options.wal.segmentMb}`] : []),
    ]);
    const conf = join(dataDir, 'postgresql.conf');
    appendFileSync(conf, configLines(dir, fast, options.settings ?? {}));
    for (let tries = 1; ; tries++) {
      if (options.port === undefined) port = await (options.freePort ?? freePort)();
      // Postgres reads the last `port` line: a retry's comes after the one that failed.
      appendFileSync(conf, `port = ${port}\n`);
      try {
        await handle.start();
        break;
      } catch (error) {
        const taken = /Address already in use/.test(String(error));
        if (options.port !== undefined || !taken || tries === BIND_TRIES) throw error;
        // So the next failure's message quotes its own log, not this one's.
        rmSync(logFile, { force: true });
      }
    }
  } catch (error) {
    try {
      await handle.remove();
    } catch (cleanup) {
      throw new Error(`${String(error)}\n(and removing ${dir} failed too: ${String(cleanup)})`);
    }
    throw error;
  }
  return handle;
}
