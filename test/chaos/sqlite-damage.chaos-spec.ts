import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../lib/backends/sqlite/sqlite.backend';
import { ExitCode } from '../../lib/core/exit-code';
import { newRecord } from '../../lib/backend-kit';
import { startNodeProcess, type RunningCli } from '../helpers/cli-process';
import { overwrite } from '../helpers/damaged-sqlite';
import { storeRules } from '../../lib/lifecycle/store-rules';

// A SQLite file damaged under a real worker pool (main process and forked
// children, from the TypeScript sources): no retry can mend it, so the pool
// must stop with its own exit code, in bounded time, instead of retrying.

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'test', 'fixtures', 'sqlite', 'sqlite-worker.main.ts');
const REGISTER = join(ROOT, 'test', 'helpers', 'transpile-register.js');

/** Longest a pool on a damaged file may take to exit, its children's boot included. */
const STOP_BOUND_MS = 60_000;

describe('a damaged SQLite file under the real CLI (chaos)', () => {
  // Each child boots Nest from transpiled sources: slow on 2 busy cores.
  jest.setTimeout(180_000);
  let dir: string;
  let file: string;
  const runs: RunningCli[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-damage-'));
    file = join(dir, 'threadmill.db');
  });

  afterEach(async () => {
    // The pool leads its own process group: one kill takes its children too.
    for (const run of runs.splice(0)) await run.killGroup();
    rmSync(dir, { recursive: true, force: true });
  });

  const command = (args: string[]): RunningCli =>
    startNodeProcess(CLI, args, runs, {
      execArgv: ['-r', REGISTER],
      env: { THREADMILL_SQLITE_URL: `sqlite://${file}` },
    });

  /** How `run` exited, or a failure with its output if it is still running after `boundMs`. */
  async function exitWithin(
    run: RunningCli,
    boundMs: number,
  ): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still running after ${boundMs} ms:\n${run.output()}`)),
        boundMs,
      );
    });
    try {
      const { code } = await Promise.race([run.exited, late]);
      return { code, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  it('SQLite file with 16 KiB of random bytes in the middle stops the pool with StoreCorruptError', async () => {
    const backend = new SqliteBackend('default', { backend: SqliteBackend, url: file }, storeRules);
    await backend.tasks.enqueueMany(
      Array.from({ length: 601 }, (_, i) =>
        newRecord('default', { name: 'sqlite.double', args: [i] }),
      ),
    );
    // Closed, so every page is in the file itself (the last connection checkpoints the WAL).
    await backend.close();
    const { size } = statSync(file);
    overwrite(file, Math.floor(size / 2), 16 * 1024, 'the middle of the file');

    const pool = command(['worker', '--processes', '2', '--threads', '4', '--exit-empty']);
    const { code, ms } = await exitWithin(pool, STOP_BOUND_MS);
    const output = pool.output();
    expect({ code, output: code === ExitCode.StoreCorrupt ? '' : output }).toEqual({
      code: ExitCode.StoreCorrupt,
      output: '',
    });
    // A child says what and where; the pool's last line says why it stopped.
    expect(output).toContain(
      `the SQLite database ${file} is damaged (SqliteError: database disk image is malformed)`,
    );
    expect(output.trimEnd().split('\n').at(-1)).toMatch(
      /^error: The store of backend "default" is damaged: worker child \d+ found it so/,
    );
    expect(output).not.toContain('Storing the outcome of');
    process.stdout.write(`[chaos] damaged SQLite file: the pool exited ${code} after ${ms} ms\n`);
  });

  it('a command on a file that is not a database exits with StoreCorrupt, naming the file', async () => {
    writeFileSync(file, 'not a database\n'.repeat(1000));
    for (const args of [
      ['enqueue', 'sqlite.double', '--args', '[1]'],
      ['worker', '--exit-empty'],
    ]) {
      const run = command(args);
      const { code } = await exitWithin(run, STOP_BOUND_MS);
      expect({ args, code }).toEqual({ args, code: ExitCode.StoreCorrupt });
      expect(run.output()).toContain(
        `StoreCorruptError: Threadmill backend "default": ${file} is not a SQLite database`,
      );
    }
  });
});
