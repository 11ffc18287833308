import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Once this much was appended, the journal is rewritten with only the ids still held. */
const COMPACT_AFTER_BYTES = 256 * 1024;

/**
 * Which task ids a worker child holds, in a file its pool's main process
 * reads when the child dies, so it can fail those tasks at once. A message
 * per leased batch would tell the main process the same, but each one wakes
 * it: on a busy child that cost more CPU than the tasks (about 13% of the
 * throughput of a 100-slot child on 2 cores), where an append to a file
 * wakes no one. The child appends a line before a task starts (`+` and the
 * ids as a JSON array), and one once it stored or released them (`-` and
 * the ids); a process that dies
 * loses nothing it wrote, since the file lives in the page cache, not in the
 * process. The file is compacted now and then by writing the ids still held
 * to a new file and renaming it over the old one, so a death at any moment
 * leaves one whole journal.
 *
 * @internal
 */
export class HeldJournal {
  private fd: number;
  private readonly held = new Set<string>();
  private appended = 0;

  /** Opens (creating or appending to) the journal at `path`; the child's side. */
  constructor(private readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  /** Records ids as held; returns once the line is written (before the tasks may start). */
  hold(ids: readonly string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.held.add(id);
    this.append(`+${JSON.stringify(ids)}\n`);
  }

  /** Records ids as no longer held (stored, released or given up to the reaper). */
  release(ids: readonly string[]): void {
    const released = ids.filter((id) => this.held.delete(id));
    if (released.length > 0) this.append(`-${JSON.stringify(released)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * The ids a journal says are held; none when there is no journal. Never
   * throws: a last line cut short (the child died inside the write), or a
   * journal that cannot be read, only leaves ids out, and the pool's search
   * of the running tasks finds those instead.
   */
  static read(path: string): string[] {
    const held = new Set<string>();
    try {
      const text = readFileSync(path, 'utf8');
      for (const line of text.slice(0, Math.max(0, text.lastIndexOf('\n'))).split('\n')) {
        if (line === '') continue;
        const ids = JSON.parse(line.slice(1)) as string[];
        if (line.startsWith('+')) for (const id of ids) held.add(id);
        else for (const id of ids) held.delete(id);
      }
    } catch {
      // Missing (the child never held anything) or damaged: what was read so far stands.
    }
    return [...held];
  }

  static remove(path: string): void {
    rmSync(path, { force: true });
  }

  private append(line: string): void {
    writeSync(this.fd, line);
    this.appended += line.length;
    if (this.appended >= COMPACT_AFTER_BYTES) this.compact();
  }

  private compact(): void {
    const next = `${this.path}.next`;
    const fd = openSync(next, 'w');
    try {
      if (this.held.size > 0) writeSync(fd, `+${JSON.stringify([...this.held])}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a');
    this.appended = 0;
  }
}
