import { execFileSync } from 'node:child_process';

/**
 * The pids of the direct children of `pid` (`pgrep -P`, on Linux and macOS);
 * none when it has none or has exited. For a test that must stop processes
 * a child of its own started in other process groups.
 */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch (error) {
    // pgrep exits 1 when nothing matches: no children is an answer, not a failure.
    if ((error as { status?: unknown }).status === 1) return [];
    throw error;
  }
}
