// What the docs' screenshot scripts (inspector-screenshot.mjs and
// dashboard-screenshot.mjs) set up before they photograph anything: a private
// redis-server on a free loopback port, and the sample app's processes run
// from their sources against it. Everything started here is stopped by
// cleanUp(), which each script calls before it exits.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Node's arguments that run the sample's TypeScript sources (from ROOT or a copy of it). */
export const FROM_SOURCES = ['-r', './test/helpers/transpile-register.js'];
/** The pool runs under this host name where it can (a UTS namespace of its own, as root). */
export const WORKER_HOST = 'worker-1';

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Resolves with `check()`'s first truthy answer, asked every 100 ms; throws after `timeoutMs`. */
export async function waitFor(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function redisAnswers(port) {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      done(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

const cleanups = [];

/** Runs `cleanup` (async) on cleanUp(), after those added later. */
export function onCleanUp(cleanup) {
  cleanups.push(cleanup);
}

/** Stops everything started, the latest first; a failing step is reported, not thrown. */
export async function cleanUp() {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch((error) => process.stderr.write(`cleanup: ${error.message}\n`));
  }
}

/** Whether this process may give a child a host name of its own. */
export async function canSetHostName() {
  if (userInfo().uid !== 0) return false;
  return run('unshare', ['--uts', 'true']).then(
    () => true,
    () => false,
  );
}

/**
 * A private Redis: never the machine's own, never flushed. Its data lives in
 * a temporary folder named from `tempPrefix`; both go on cleanUp(). Resolves
 * with its port once it answers PING.
 */
export async function startRedis(tempPrefix) {
  const port = await freePort();
  const redisDir = mkdtempSync(join(tmpdir(), tempPrefix));
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''],
    { stdio: 'ignore' },
  );
  onCleanUp(async () => {
    redis.kill('SIGKILL');
    rmSync(redisDir, { recursive: true, force: true });
  });
  await waitFor('redis-server', () => redisAnswers(port), 10_000);
  return port;
}

/** The sample app's environment on the Redis at `redisPort`, plus `extra`. */
export function sampleEnv(redisPort, extra = {}) {
  return {
    ...process.env,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    THREADMILL_ALIAS: 'default',
    THREADMILL_LOG_LEVEL: 'warn',
    NO_COLOR: '1',
    ...extra,
  };
}

/**
 * Starts `node <nodeArgs>` (under `hostName` when given) in its own process
 * group; stopped on cleanUp() with SIGTERM, a second SIGTERM (which releases
 * tasks that never finish), then SIGKILL.
 */
export function startNode(nodeArgs, { cwd, env, hostName, stdio }) {
  const command = [process.execPath, ...nodeArgs];
  const [file, ...args] = hostName
    ? ['unshare', '--uts', 'sh', '-c', `hostname ${hostName} && exec "$@"`, 'sh', ...command]
    : command;
  const child = spawn(file, args, { cwd, env, stdio, detached: true });
  const exited = new Promise((done) => child.once('exit', done));
  onCleanUp(async () => {
    for (const signal of ['SIGTERM', 'SIGTERM', 'SIGKILL']) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        return;
      }
      await Promise.race([exited, sleep(signal === 'SIGKILL' ? 1000 : 5000)]);
    }
  });
  return child;
}
