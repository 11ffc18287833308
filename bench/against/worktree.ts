import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { CleanupRegistry, Log } from '../pool-drain';
import { UsageError } from './options';

export interface Manifest {
  version?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  overrides?: unknown;
}

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
  'overrides',
] as const;

/** Whether two package.json declare the same dependencies, whatever the order of their keys. */
export function sameDependencies(a: Manifest, b: Manifest): boolean {
  return DEPENDENCY_FIELDS.every((field) => canonical(a[field]) === canonical(b[field]));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) =>
      x < y ? -1 : x > y ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** A ref checked out in a temporary worktree, removed by the run's cleanup. */
export interface RefCheckout {
  ref: string;
  commit: string;
  short: string;
  dir: string;
  manifest: Manifest;
  /** Its node_modules: the project's, linked (same dependencies), or its own `npm ci`. */
  install: 'linked' | 'npm ci';
}

/** The commit a ref names, full and short; a UsageError when git knows no such commit. */
export function resolveRef(root: string, ref: string): { commit: string; short: string } {
  try {
    const commit = gitOut(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    return { commit, short: gitOut(root, ['rev-parse', '--short', commit]) };
  } catch {
    throw new UsageError(`--against ${ref}: no such commit in ${root}`);
  }
}

/**
 * `git worktree add --detach <tmp>/tree <commit>`, with node_modules: the
 * project's own, symlinked, when the ref's package.json declares the same
 * dependencies (the link makes Node load the very same packages, ioredis
 * among them, so both builds run on identical clients), else `npm ci
 * --prefer-offline` there. The removal is registered before anything is
 * created, so a failed or interrupted build leaves nothing behind.
 */
export async function checkOutRef(
  root: string,
  ref: string,
  log: Log,
  cleanup: CleanupRegistry,
): Promise<RefCheckout> {
  const { commit, short } = resolveRef(root, ref);
  const tmp = mkdtempSync(join(tmpdir(), `threadmill-against-${short}-`));
  const dir = join(tmp, 'tree');
  cleanup.add(async () => removeWorktree(root, tmp, dir, log));
  log(`against ${ref}: git worktree add --detach ${dir} ${short}`);
  gitOut(root, ['worktree', 'add', '--detach', dir, commit]);
  const manifest = readManifest(dir);
  let install: RefCheckout['install'] = 'linked';
  if (sameDependencies(manifest, readManifest(root))) {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    log(`against ${ref}: same dependencies, node_modules linked to the project's`);
  } else {
    install = 'npm ci';
    log(`against ${ref}: other dependencies, npm ci --prefer-offline in the worktree`);
    await runCommand('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir, cleanup);
  }
  return { ref, commit, short, dir, manifest, install };
}

/**
 * Removes the worktree. The node_modules link goes first, by itself: nothing
 * that removes the tree may ever reach into the project's own node_modules.
 */
function removeWorktree(root: string, tmp: string, dir: string, log: Log): void {
  const modules = join(dir, 'node_modules');
  try {
    if (lstatSync(modules).isSymbolicLink()) unlinkSync(modules);
  } catch {
    // No node_modules: the worktree was never completed.
  }
  if (existsSync(dir)) {
    try {
      gitOut(root, ['worktree', 'remove', '--force', dir]);
    } catch (error) {
      log(`git worktree remove failed (${String(error)}); deleting ${dir} and pruning instead`);
    }
  }
  rmSync(tmp, { recursive: true, force: true });
  gitOut(root, ['worktree', 'prune']);
  log(`worktree ${dir} removed`);
}

function gitOut(root: string, args: readonly string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** How long a stopped build step may take to exit before it is killed outright. */
const STOP_GRACE_MS = 5000;

/**
 * Runs a build step to completion, its output kept for the error only. Not
 * execFileSync: a blocked event loop would hold Ctrl-C's cleanup back until
 * the step ended on its own. The step gets a process group of its own, and
 * the cleanup stops that whole group and waits for it: npm does not pass a
 * SIGTERM on to the `nest build` or `tsc` it runs, which would go on writing
 * into a worktree already removed.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  cwd: string,
  cleanup: CleanupRegistry,
): Promise<void> {
  const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  cleanup.add(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else {
        reject(
          new Error(`${file} ${args.join(' ')} in ${cwd} exited ${code ?? signal}:\n${output}`),
        );
      }
    });
  });
}
