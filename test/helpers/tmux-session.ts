import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';

import { waitFor } from './wait-for';

const run = promisify(execFile);

export interface TmuxSessionOptions {
  width: number;
  height: number;
  cwd: string;
  /**
   * Variables set in the terminal's shell, e.g. a secret the test must not
   * type (a typed command line stays on the screen).
   */
  env?: Readonly<Record<string, string>>;
}

/**
 * A real terminal for TUI tests: a detached tmux session running bash on a
 * tmux server of its own (`-L` socket), so `kill()` removes exactly what the
 * test started and never touches anybody else's tmux.
 */
export class TmuxSession {
  private readonly socket = `threadmill-test-${randomUUID()}`;
  private readonly target = 'main';
  private socketPath = '';

  private constructor() {}

  static async start({ width, height, cwd, env = {} }: TmuxSessionOptions): Promise<TmuxSession> {
    const session = new TmuxSession();
    await session.tmux(
      'new-session',
      '-d',
      '-s',
      session.target,
      '-x',
      String(width),
      '-y',
      String(height),
      '-c',
      cwd,
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      // A plain shell with a fixed prompt, whatever the user's rc files say.
      'env PS1="$ " bash --norc --noprofile',
    );
    const { stdout } = await session.tmux('display-message', '-p', '#{socket_path}');
    session.socketPath = stdout.trim();
    await waitFor(async () => (await session.capture()).includes('$'), {
      what: 'the shell prompt',
    });
    return session;
  }

  /** Types a command line and presses Enter. */
  async type(line: string): Promise<void> {
    await this.tmux('send-keys', '-t', this.target, '-l', line);
    await this.tmux('send-keys', '-t', this.target, 'Enter');
  }

  /** Presses keys by tmux name (`Enter`, `Tab`, `Down`) or as literal text with `literal`. */
  async press(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.target, ...keys);
  }

  /** The visible screen as text, one line per row. */
  async capture(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-t', this.target);
    return stdout;
  }

  /** Resolves with the screen once it satisfies `accept`; the timeout message shows the last screen. */
  async until(
    accept: (screen: string) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<string> {
    let screen = '';
    try {
      await waitFor(
        async () => {
          screen = await this.capture();
          return accept(screen);
        },
        { what, timeoutMs, intervalMs: 25 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- last screen ---\n${screen}`);
    }
    return screen;
  }

  /** The pid of the process the shell runs in the foreground (e.g. the command typed). */
  async foregroundPid(): Promise<number> {
    const { stdout } = await this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}');
    const shell = Number(stdout.trim());
    const child = await waitFor(
      async () => {
        const { stdout: children } = await run('pgrep', ['-P', String(shell)], {
          encoding: 'utf8',
        }).catch(
          // pgrep exits 1 while the shell has no child yet: keep waiting.
          () => ({ stdout: '' }),
        );
        return Number(children.trim().split('\n')[0]) || 0;
      },
      { what: `a child of the shell ${shell}` },
    );
    return child;
  }

  /** Stops the session's tmux server (and with it every process in the terminal) and removes its socket. */
  async kill(): Promise<void> {
    // Fails only when the server is already gone (its shell exited): nothing left to stop.
    await this.tmux('kill-server').catch(() => undefined);
    // A killed tmux server leaves its socket file behind.
    if (this.socketPath !== '') rmSync(this.socketPath, { force: true });
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
