import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { SAMPLE_DIST } from './build-sample-cli';

const ROOT = join(__dirname, '..', '..');

/**
 * Builds the dashboard's page (scripts/build-dashboard.mjs, well under a
 * second) where the dashboard module looks for it: next to its sources, and
 * next to its compiled copy in sample-dist; so no test serves a stale page.
 */
export async function buildDashboardPage(): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'scripts', 'build-dashboard.mjs'),
      join(ROOT, 'lib', 'dashboard', 'assets'),
      join(SAMPLE_DIST, 'lib', 'dashboard', 'assets'),
    ],
    { cwd: ROOT },
  );
}
