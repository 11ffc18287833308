import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from './free-port';

/** Starts tried on a port found free, each on another one, before the failure is thrown. */
const BIND_TRIES = 5;

export interface RedisServerHandle {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Resolves once something answers PING with PONG on the port; rejects after
 * `timeoutMs`, or as soon as `gone()` says the server to wait for is gone.
 */
export async function waitForRedis(
  port: number,
  timeoutMs = 10_000,
  gone: () => boolean = () => false,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone()) throw new Error(`redis-server on port ${port} is gone`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      // Hung up on without a reply (whatever holds the port is no redis-server).
      socket.once('close', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface RedisServerOptions {
  /**
   * Largest file it may write (bytes): a soft RLIMIT_FSIZE, with SIGXFSZ
   * ignored, so a write past it fails as on a full disk (Redis reports "No
   * space left on device") instead of killing it. Lift it with liftFileSizeLimit.
   */
  readonly fileSizeLimitBytes?: number;
  /** Where a free port comes from when no port is named (freePort). */
  readonly freePort?: () => Promise<number>;
}

/**
 * Start a private redis-server on a free loopback port. Extra arguments are
 * passed through (cluster mode, AOF, passwords, ...). `stop()` kills it and
 * removes its directory. A port found free may be taken by the time the
 * server binds it (by the local end of a connection, from the same range):
 * a server that exits before it answers having found its port taken is
 * started again on another, BIND_TRIES times; a port the caller names is
 * used as given.
 */
export async function startRedisServer(
  extraArgs: string[] = [],
  port?: number,
  options: RedisServerOptions = {},
): Promise<RedisServerHandle> {
  for (let tries = 1; ; tries++) {
    const chosen = port ?? (await (options.freePort ?? freePort)());
    const started = await startOn(chosen, extraArgs, options);
    if (started.handle) return started.handle;
    if (port !== undefined || !started.portTaken || tries === BIND_TRIES) throw started.error;
  }
}

/** One start on `chosenPort`: its handle once it answers, or why not. */
async function startOn(
  chosenPort: number,
  extraArgs: string[],
  { fileSizeLimitBytes }: RedisServerOptions,
): Promise<
  | { handle: RedisServerHandle; error?: never; portTaken?: never }
  | { handle?: never; error: Error; portTaken: boolean }
> {
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-redis-'));
  const logFile = join(dir, 'redis.log');
  const args = [
    '--port',
    String(chosenPort),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    // Read only when it exits before answering: why it did.
    '--logfile',
    logFile,
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
    ...extraArgs,
  ];
  // Through sh only for the limit: the ignored signal and the limit survive its exec.
  const child =
    fileSizeLimitBytes === undefined
      ? spawn('redis-server', args, { stdio: 'ignore' })
      : spawn(
          'sh',
          [
            '-c',
            `trap '' XFSZ; ulimit -S -f ${Math.ceil(fileSizeLimitBytes / 512)}; exec redis-server "$@"`,
            'sh',
            ...args,
          ],
          { stdio: 'ignore' },
        );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const handle: RedisServerHandle = {
    port: chosenPort,
    url: `redis://127.0.0.1:${chosenPort}`,
    dir,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  try {
    await waitForRedis(chosenPort, undefined, gone);
    // Answered, but by another server on the port, this one having failed to bind it.
    if (gone()) throw new Error(`redis-server on port ${chosenPort} is gone`);
    return { handle };
  } catch (error) {
    if (!gone()) {
      await handle.stop();
      throw error;
    }
  }
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim() : '';
  await handle.stop();
  return {
    error: new Error(
      `redis-server on port ${chosenPort} exited (${child.exitCode ?? child.signalCode}) ` +
        `before it answered PING${log ? `:\n${log.split('\n').slice(-5).join('\n')}` : ''}`,
    ),
    portTaken: /Address already in use/.test(log),
  };
}

/** Lifts the file size limit a server was started with: its disk has room again. */
export async function liftFileSizeLimit(server: RedisServerHandle): Promise<void> {
  await promisify(execFile)('prlimit', ['--pid', String(server.process.pid), '--fsize=unlimited:']);
}
