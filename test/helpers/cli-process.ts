import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { SAMPLE_DIST } from '../setup/build-sample-cli';

// The real `threadmill` CLI: the sample app plus the fixture tasks, compiled
// once per run by test/setup/global-setup.ts.

const ROOT = join(__dirname, '..', '..');
const CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'worker-main.js');

export interface RunningCli {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr, no colours). */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Worker children that reported ready and have not exited (by the pool's own log lines). */
  liveChildren(): number[];
  /** SIGKILL to the whole process group (pool and children); resolves once the leader is gone. */
  killGroup(): Promise<void>;
}

/**
 * Spawns the fixture CLI with `args` as the leader of its own process group
 * (so one kill takes a pool's children too), at debug level unless `env`
 * says otherwise (children's readiness is read from the log), and adds it
 * to `started`, which the test's cleanup kills.
 */
export function startCli(
  args: readonly string[],
  env: Record<string, string>,
  started: RunningCli[],
): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, THREADMILL_LOG_LEVEL: 'debug', NO_COLOR: '1', ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const signalGroup = (): void => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // No process of the group is left.
    }
  };
  const cli: RunningCli = {
    process: child,
    pid: child.pid ?? 0,
    output: () => output,
    exited,
    liveChildren() {
      const ready = [...output.matchAll(/Worker child (\d+) is ready/g)].map((m) => Number(m[1]));
      const gone = new Set(
        [...output.matchAll(/Worker child (\d+) (?:exited|died)/g)].map((m) => Number(m[1])),
      );
      return ready.filter((pid) => !gone.has(pid));
    },
    async killGroup() {
      if (child.exitCode === null && child.signalCode === null) {
        signalGroup();
        await exited;
      }
      // Children outlive a killed pool leader only briefly (they finish and exit
      // when their IPC channel closes); make sure none is left behind.
      signalGroup();
    },
  };
  started.push(cli);
  return cli;
}
