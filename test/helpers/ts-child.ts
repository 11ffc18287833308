import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const REGISTER = join(__dirname, 'transpile-register.js');

/**
 * Fork a TypeScript script as a real node process with an IPC channel. Keep
 * the handle and pass it to `killChild` in an afterEach, so no test leaves a
 * process behind, whatever it failed on.
 */
export function forkTs(script: string, args: string[] = []): ChildProcess {
  return fork(script, args, {
    execArgv: ['-r', REGISTER],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/**
 * The next IPC message of `child` that `accept` recognises. Rejects when the
 * child exits first or nothing comes within the deadline, naming what it waited for.
 */
export function nextMessage<T>(
  child: ChildProcess,
  accept: (message: unknown) => message is T,
  { timeoutMs = 20_000, what = 'a message' } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: unknown): void => {
      if (!accept(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`child ${child.pid} exited (${code ?? signal}) before ${what}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`child ${child.pid} sent no ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Resolves when the child has exited, with its code or signal. */
export function exited(child: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.exitCode ?? child.signalCode);
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}

/** SIGKILL the child unless it already exited, and wait until it is gone. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited(child);
}
