import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from './free-port';

export interface RedisServerHandle {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Resolves once something answers PING with PONG on the port. */
export async function waitForRedis(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
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
}

/**
 * Start a private redis-server on a free loopback port. Extra arguments are
 * passed through (cluster mode, AOF, passwords, ...). `stop()` kills it and
 * removes its directory.
 */
export async function startRedisServer(
  extraArgs: string[] = [],
  port?: number,
  { fileSizeLimitBytes }: RedisServerOptions = {},
): Promise<RedisServerHandle> {
  const chosenPort = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-redis-'));
  const args = [
    '--port',
    String(chosenPort),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
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
  try {
    await waitForRedis(chosenPort);
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

/** Lifts the file size limit a server was started with: its disk has room again. */
export async function liftFileSizeLimit(server: RedisServerHandle): Promise<void> {
  await promisify(execFile)('prlimit', ['--pid', String(server.process.pid), '--fsize=unlimited:']);
}
