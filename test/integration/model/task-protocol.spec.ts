import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// model/task-protocol.pml checked by Debian's spin: its own assertions in
// every state reached, and mutants of it that they must catch.

const run = promisify(execFile);
const MODEL = join(__dirname, '../../../model/task-protocol.pml');

interface Verdict {
  errors: number;
  report: string;
}

/** Generates, compiles and runs the verifier of the model with `defines`, in a folder of its own. */
async function verify(defines: string[] = []): Promise<Verdict> {
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-spin-'));
  try {
    copyFileSync(MODEL, join(dir, 'task-protocol.pml'));
    await run('spin', [...defines.map((name) => `-D${name}`), '-a', 'task-protocol.pml'], {
      cwd: dir,
    });
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

describe('the task protocol model (spin)', () => {
  jest.setTimeout(60_000);

  it('holds every invariant in every state it reaches', async () => {
    const { errors, report } = await verify();
    expect(errors === 0 ? 'no errors' : report).toBe('no errors');
    expect(report).not.toContain('search depth too small');
  });

  it('catches a retry that reads again after a lost store and retries the attempt it then finds', async () => {
    const { errors, report } = await verify(['MUTANT_RETRY_LOOP']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated  !(moved[r])');
  });

  it('spin catches the old prefetch start (a cancelled prefetched task started)', async () => {
    const { errors, report } = await verify(['MUTANT_PREFETCH_START']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated  !(answered[t])');
  });
});
