import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real file system of `sizeBytes` (a tmpfs mounted in a folder of its own),
 * for what a full disk does to a store: SQLite then fails with SQLITE_FULL,
 * as on a real disk, which no setting inside SQLite imitates. Mounting needs
 * root (CAP_SYS_ADMIN), as in this project's containers.
 */
export class SmallDisk {
  readonly dir = mkdtempSync(join(tmpdir(), 'threadmill-small-disk-'));
  private fillers = 0;
  private mounted = false;

  constructor(sizeBytes: number) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', this.dir], {
        stdio: 'pipe',
      });
      this.mounted = true;
    } catch (error) {
      rmSync(this.dir, { recursive: true, force: true });
      throw new Error(
        `this test needs a small file system of its own and could not mount a tmpfs on ` +
          `${this.dir} (run the tests as root, or in a container that may mount): ${String(error)}`,
      );
    }
  }

  /** Bytes a file may still take. */
  free(): number {
    const { bavail, bsize } = statfsSync(this.dir);
    return Number(bavail) * Number(bsize);
  }

  /** Writes a file that takes all the free space but `leaveBytes`; its path, to free it again. */
  fill(leaveBytes = 0): string {
    const path = join(this.dir, `filler-${++this.fillers}`);
    writeFileSync(path, Buffer.alloc(Math.max(0, this.free() - leaveBytes)));
    return path;
  }

  /**
   * Writes a file until the file system refuses more (ENOSPC), in ever smaller
   * chunks down to one page: for a disk another process writes to meanwhile,
   * whose free space changes between a look and a write. Its path, to free it.
   */
  fillUp(): string {
    const path = join(this.dir, `filler-${++this.fillers}`);
    const fd = openSync(path, 'w');
    try {
      for (let chunk = 1024 * 1024; chunk >= 4096; chunk /= 4) {
        const bytes = Buffer.alloc(chunk);
        // Bounded: the disk is finite, and each pass ends at the first refusal.
        for (;;) {
          try {
            writeSync(fd, bytes);
          } catch (error) {
            if ((error as { code?: string }).code === 'ENOSPC') break;
            throw error;
          }
        }
      }
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /** Unmounts and removes the folder; whatever was on it is gone. Close every file on it first. */
  remove(): void {
    if (this.mounted) execFileSync('umount', [this.dir], { stdio: 'pipe' });
    this.mounted = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
