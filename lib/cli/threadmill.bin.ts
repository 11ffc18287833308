#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ExitCode } from '../core/exit-code';
import { importEsm } from '../utils/import-esm.util';
import { usageLine } from './command.messages';

/**
 * `npx threadmill <command>`: runs the app's own worker entry with these
 * arguments. The commands boot the app's module (its tasks, providers and
 * backends), or for a command that runs no task its Threadmill configuration
 * alone, which only the app's entry knows, so this finds that entry:
 * `THREADMILL_ENTRY`, else `threadmill.entry` in the nearest package.json,
 * else `dist/worker.js` beside it. The entry runs in this very process, so
 * signals reach the pool exactly once.
 */

const DEFAULT_ENTRY = join('dist', 'worker.js');

/** The nearest folder at or above `start` with a package.json, or `start` itself. */
function packageRoot(start: string): { root: string; entry?: string } {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
        threadmill?: { entry?: unknown };
      };
      const entry = manifest.threadmill?.entry;
      return { root: dir, entry: typeof entry === 'string' ? entry : undefined };
    }
    if (dirname(dir) === dir) return { root: start };
  }
}

function entryNotFound(path: string): string {
  return (
    `no worker entry at ${path}. The commands run inside your app, so threadmill runs your ` +
    `app's worker entry (a file that calls runThreadmillCli(YourWorkerModule)). Build it to ` +
    `dist/worker.js, or name it in package.json ("threadmill": { "entry": "dist/worker.js" }) ` +
    `or in THREADMILL_ENTRY.`
  );
}

async function main(): Promise<void> {
  const cwd = process.cwd();
  const fromEnv = process.env.THREADMILL_ENTRY;
  const { root, entry } = packageRoot(cwd);
  const path = fromEnv ? resolve(cwd, fromEnv) : resolve(root, entry ?? DEFAULT_ENTRY);
  if (!existsSync(path)) {
    process.stderr.write(usageLine(entryNotFound(path)));
    process.exitCode = ExitCode.Usage;
    return;
  }
  // The entry reads its command from process.argv, and the pool forks its
  // children from argv[1]: both must name the entry, not this file.
  process.argv = [process.argv[0], path, ...process.argv.slice(2)];
  await importEsm(pathToFileURL(path).href);
}

void main();
