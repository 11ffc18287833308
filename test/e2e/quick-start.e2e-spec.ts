import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { childPids } from '../helpers/child-pids';
import { freePort } from '../helpers/free-port';
import { waitFor } from '../helpers/wait-for';
import { SAMPLE_DIST } from '../setup/build-sample-cli';

// The README's quick start on a machine without Redis: `npm start` is the
// sample's supervisor (sample/src/start.ts; the run's global setup compiles it
// as `npm start` does) starting the web app and a worker pool. With REDIS_URL
// unset they keep their tasks in a SQLite file, here in a temporary folder.
// Ctrl-C is a SIGINT to the supervisor's process group, as a terminal sends it.

const ROOT = join(__dirname, '..', '..');
const START = join(SAMPLE_DIST, 'sample', 'src', 'start.js');

interface Started {
  readonly process: ChildProcess;
  /** Resolves once every process writing to its output (web app, pool, pool children) has exited. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The supervisor's children (web app and pool), each the leader of its own process group. */
  readonly groups: Set<number>;
  isClosed(): boolean;
  output(): string;
}

interface TaskBody {
  id: string;
  status: string;
  returnValue?: unknown;
}

describe('npm start without Redis (e2e: the quick start on SQLite, Ctrl-C and restart)', () => {
  // Two Nest apps and a pool child boot per start, on 2 shared cores.
  jest.setTimeout(90_000);
  const started: Started[] = [];
  let dir: string;
  let databaseFile: string;
  let base: string;
  let port: number;
  let taskId: string;
  let finished: TaskBody;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-quick-start-'));
    databaseFile = join(dir, 'data', 'sample.db');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    // SIGKILL every group still alive: the supervisor's, and those of the web app and the pool
    // (whose group holds its children too).
    for (const run of started) {
      if (run.isClosed()) continue;
      for (const pid of childPids(run.process.pid ?? 0)) run.groups.add(pid);
      for (const group of [run.process.pid ?? 0, ...run.groups]) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // That group has already exited: nothing of it left to stop.
        }
      }
      await run.closed;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The environment of a fresh machine: no Redis named anywhere (the run's global setup exports one). */
  function freshEnvironment(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      THREADMILL_SQLITE_FILE: databaseFile,
      NO_COLOR: '1',
    };
    for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'THREADMILL_ALIAS']) delete env[name];
    return env;
  }

  /** Resolves with the first match of `pattern` in the output; rejects if the supervisor exits first. */
  function untilOutput(run: Started, pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        run.process.stdout?.off('data', check);
        run.process.stderr?.off('data', check);
        run.process.off('exit', onExit);
      };
      const check = (): void => {
        const match = pattern.exec(run.output());
        if (!match) return;
        stop();
        resolve(match);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        stop();
        reject(
          new Error(
            `npm start exited (${code ?? signal}) before printing ${pattern}:\n${run.output()}`,
          ),
        );
      };
      run.process.stdout?.on('data', check);
      run.process.stderr?.on('data', check);
      run.process.once('exit', onExit);
      check();
    });
  }

  /** `npm start`'s process, once the web app listens. */
  async function npmStart(): Promise<Started> {
    const child = spawn(process.execPath, [START], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: freshEnvironment(),
    });
    let output = '';
    let closed = false;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const run: Started = {
      process: child,
      closed: new Promise((resolve) =>
        child.once('close', (code, signal) => {
          closed = true;
          resolve({ code, signal });
        }),
      ),
      groups: new Set(),
      isClosed: () => closed,
      output: () => output,
    };
    started.push(run);
    await untilOutput(run, new RegExp(`Listening on ${base.replace(/\./g, '\\.')}`));
    // Both were spawned before the web app could listen: record them while they are still children.
    for (const pid of childPids(child.pid ?? 0)) run.groups.add(pid);
    return run;
  }

  /** Ctrl-C in the terminal: SIGINT to the foreground group, which is the supervisor alone. */
  async function ctrlC(
    run: Started,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    process.kill(-(run.process.pid ?? 0), 'SIGINT');
    return run.closed;
  }

  const healthy = (): Promise<number> =>
    waitFor(
      async () => {
        const response = await fetch(`${base}/health`);
        return response.status === 200 ? response.status : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `GET ${base}/health to answer 200` },
    );

  const result = async (id: string): Promise<{ status: number; body: TaskBody }> => {
    const response = await fetch(`${base}/tasks/${id}`);
    return { status: response.status, body: (await response.json()) as TaskBody };
  };

  it('answers GET /health with 200 and keeps its tasks in the configured SQLite file', async () => {
    await npmStart();
    expect(await healthy()).toBe(200);
    expect(existsSync(databaseFile)).toBe(true);
  });

  it('runs a task posted to /tasks/sample.echo to SUCCESSFUL', async () => {
    const response = await fetch(`${base}/tasks/sample.echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ args: ['hello'] }),
    });
    expect(response.status).toBe(202);
    taskId = ((await response.json()) as { id: string }).id;
    finished = await waitFor(
      async () => {
        const { body } = await result(taskId);
        return body.status === 'SUCCESSFUL' ? body : null;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: `task ${taskId} to succeed` },
    );
    expect(finished).toMatchObject({ id: taskId, returnValue: ['hello'] });
  });

  it('stops the web app and the pool together on Ctrl-C, exit code 0', async () => {
    const [run] = started;
    expect(await ctrlC(run)).toEqual({ code: 0, signal: null });
    expect(run.output()).toContain('Worker pool stopped: 1 task(s) done, 0 failed.');
  });

  it('still has the result after a restart on the same file, and runs again', async () => {
    const run = await npmStart();
    expect(await result(taskId)).toEqual({ status: 200, body: finished });
    expect(await healthy()).toBe(200);
    expect(await ctrlC(run)).toEqual({ code: 0, signal: null });
  });

  it('stops the web app and the pool on their own when npm start is killed with SIGKILL', async () => {
    const run = await npmStart();
    expect(await healthy()).toBe(200);
    // The supervisor alone, as an OOM killer or `kill -9` would: no signal reaches the others.
    run.process.kill('SIGKILL');
    // Resolves once no process holds the output pipes: the web app, the pool and its children.
    await run.closed;
    expect(run.output()).toContain('Graceful stop (parent gone)');
    expect(run.output()).toContain('Worker pool stopped');
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });
});
