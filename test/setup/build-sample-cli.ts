import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');

/** Where the compiled CLIs the e2e suites spawn live. */
export const SAMPLE_DIST = join(ROOT, 'sample-dist');

/**
 * Compiles lib + sample + the e2e fixtures once per run (tsc --noCheck,
 * incremental), before any test file starts: e2e files run in parallel
 * workers, and two compilers writing one output folder would race.
 */
export async function buildSampleCli(): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'test/fixtures/worker/tsconfig.e2e.json'],
    { cwd: ROOT },
  );
  cpSync(
    join(ROOT, 'lib', 'backends', 'redis', 'lua'),
    join(SAMPLE_DIST, 'lib', 'backends', 'redis', 'lua'),
    { recursive: true },
  );
}
