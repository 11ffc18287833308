import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { SAMPLE_DIST } from '../setup/build-sample-cli';

// The real `threadmill` CLI: the sample app plus the fixture tasks, compiled
// once per run by test/setup/global-setup.ts.

const ROOT = join(__dirname, '..', '..');

/** The fixture CLI: the sample's commands with the fixture tasks, on Redis. */
export const FIXTURE_CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'worker-main.js');
/** The same commands on a MemoryBackend. */
export const MEMORY_CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'memory-main.js');
/** Commands whose one task provider notes each construction of it (see boot-marker-main.ts). */
export const BOOT_MARKER_CLI = join(
  SAMPLE_DIST,
  'test',
  'fixtures',
  'worker',
  'boot-marker-main.js',
);
/** The sample's commands with the tasks of one of two apps (THREADMILL_FIXTURE_APP: billing or shop). */
export const APP_CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'app-main.js');
/** A web app whose tasks run in its own process (ThreadmillModule's `inProcessWorker`). */
export const IN_PROCESS_APP = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'in-process-main.js');
/** The CLI of that app: the same module, booted for a command. */
export const IN_PROCESS_CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'in-process-cli.js');

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

/** How a command run to its end ended, and what it printed where. */
export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NodeProcessOptions {
  /** Node's own flags, before the script (e.g. `-r` a transpile hook). */
  readonly execArgv?: readonly string[];
  /** Added to this process's environment (NO_COLOR is set, so output has no colours). */
  readonly env?: Record<string, string>;
  /** The working folder: the repository unless given (an app outside it runs from its own). */
  readonly cwd?: string;
}

/**
 * Spawns `node script ...args` as the leader of its own process group (so
 * one kill takes a pool's children too), collects its output, and adds it to
 * `started`, which the test's cleanup kills with `killGroup()`.
 */
export function startNodeProcess(
  script: string,
  args: readonly string[],
  started: RunningCli[],
  { execArgv = [], env = {}, cwd = ROOT }: NodeProcessOptions = {},
): RunningCli {
  const child = spawn(process.execPath, [...execArgv, script, ...args], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
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

/**
 * Spawns the fixture CLI (or `cli`, another fixture entry) with `args` in a process group of its own (see
 * startNodeProcess), at debug level unless `env` says otherwise (children's
 * readiness is read from the log).
 */
export function startCli(
  args: readonly string[],
  env: Record<string, string>,
  started: RunningCli[],
  cli = FIXTURE_CLI,
): RunningCli {
  return startNodeProcess(cli, args, started, {
    env: { THREADMILL_LOG_LEVEL: 'debug', ...env },
  });
}

/** Runs one command of a CLI (the fixture CLI unless `cli` names another) to its end. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  cli = FIXTURE_CLI,
): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Resolves with the first match of `pattern` in the process's output, as
 * soon as it is printed; rejects with the output if the process ends first.
 */
export function untilOutput(cli: RunningCli, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      cli.process.stdout?.off('data', check);
      cli.process.stderr?.off('data', check);
    };
    const check = (): void => {
      const match = pattern.exec(cli.output());
      if (!match) return;
      stop();
      resolve(match);
    };
    cli.process.stdout?.on('data', check);
    cli.process.stderr?.on('data', check);
    void cli.exited.then(() => {
      // Output read before the close is all there is: a last look, then give up.
      check();
      stop();
      reject(new Error(`the process exited before printing ${pattern}:\n${cli.output()}`));
    });
    check();
  });
}
