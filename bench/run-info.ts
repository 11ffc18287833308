import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { release, type } from 'node:os';
import { join } from 'node:path';

import { BENCHMARKS_PAGE } from './benchmarks-page';

/** `git <args>` in `root`, its stdout; null when git fails (no repository, unknown ref). */
export function git(root: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

export function gitCommit(root: string): string | null {
  return git(root, ['rev-parse', '--short', 'HEAD'])?.trim() ?? null;
}

/** Uncommitted changes (untracked files included) besides what a run itself writes; null when git cannot tell. */
export function gitDirty(root: string): boolean | null {
  const status = git(root, [
    'status',
    '--porcelain',
    '--',
    '.',
    ':(exclude)bench/results',
    `:(exclude)${BENCHMARKS_PAGE}`,
  ]);
  return status === null ? null : status.trim().length > 0;
}

export function packageVersion(root: string, name: string): string {
  const manifest = join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

export function ownVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** "Debian GNU/Linux 12 (bookworm), Linux 6.1.0" where /etc/os-release says so, else the kernel alone. */
export function osName(): string {
  const kernel = `${type()} ${release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return pretty ? `${pretty[1]}, ${kernel}` : kernel;
  } catch {
    return kernel;
  }
}
