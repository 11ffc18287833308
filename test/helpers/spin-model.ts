import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the verifier of a model printed, and how many errors it counted. */
export interface SpinVerdict {
  errors: number;
  report: string;
}

/**
 * Generates, compiles and runs Debian spin's safety verifier of the model at
 * `model` with `defines` (e.g. a mutant's name), in a folder of its own.
 */
export async function verifyModel(model: string, defines: string[] = []): Promise<SpinVerdict> {
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-spin-'));
  const file = basename(model);
  try {
    copyFileSync(model, join(dir, file));
    await run('spin', [...defines.map((name) => `-D${name}`), '-a', file], { cwd: dir });
    await run('gcc', ['-O2', '-DSAFETY', '-w', '-o', 'pan', 'pan.c'], { cwd: dir });
    // pan exits 0 with errors counted in its report.
    const { stdout } = await run(join(dir, 'pan'), ['-m100000'], {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
    });
    const errors = /errors: (\d+)/.exec(stdout);
    if (!errors) throw new Error(`pan printed no verdict:\n${stdout}`);
    return { errors: Number(errors[1]), report: stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
