import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Once this much was appended, the journal is rewritten with only the ids still held. */
const COMPACT_AFTER_BYTES = 256 * 1024;
/** Waiting `-` lines are written without waiting for a `+` once they are this long. */
const PENDING_FORGETS_MAX = 64 * 1024;

/** What a journal says its child held: every id, and those of them that had not started. */
export interface JournalHolding {
  readonly held: string[];
  /** Leased ahead (prefetch) and never started: safe to give back as if never leased. */
  readonly unstarted: string[];
}

/**
 * Which task ids a worker child holds, in a file its pool's main process
 * reads when the child dies, so it can fail those tasks at once. A message
 * per leased batch would tell the main process the same, but each one wakes
 * it: on a busy child that cost about a tenth of its throughput (a 100-slot
 * child on 2 cores), where an append to a file wakes no one. The child
 * appends a line before a task starts (`+` and the ids as a JSON array), and
 * one once the ids left its hands (`-`: stored, given up to the reaper,
 * released or abandoned); a process that dies loses nothing it wrote, since
 * the file lives in the page cache, not in the process. A `-` line waits for
 * the next write (the next `+`, or close): a lost `-` only makes the pool look
 * up tasks that are stored already, which it leaves alone, so a busy child
 * makes one write per leased batch, not two. A task leased ahead of a free
 * slot (prefetch) is written with `~` instead of `+`, and `>` marks it
 * started, written before it starts, so the pool gives back as never leased
 * the ones that never started (a task that kills its process must never look
 * unstarted, or it would run again with no attempt counted, forever). The
 * file is compacted now and then by writing the ids still held to a new file
 * and renaming it over the old one, so a death at any moment leaves one whole
 * journal. Every write error is thrown to the caller, which works on without
 * the journal: the pool's search of the running tasks is the fallback.
 *
 * @internal
 */
export class HeldJournal {
  /** Opened on the first write, so a child that never holds a task never needs the folder. */
  private fd: number | null = null;
  private readonly held = new Set<string>();
  /** The held ids not started yet (`~` lines with no `>` since). */
  private readonly unstarted = new Set<string>();
  private appended = 0;
  /** `-` lines not written yet; they go out with the next write. */
  private pendingForgets = '';

  /** The child's side of the journal at `path` (created, or appended to). */
  constructor(private readonly path: string) {}

  /**
   * Records ids as held, `ids` started and `waiting` not yet (prefetched);
   * returns once the lines are written (before the tasks may start).
   */
  hold(ids: readonly string[], waiting: readonly string[] = []): void {
    if (ids.length === 0 && waiting.length === 0) return;
    for (const id of ids) this.held.add(id);
    for (const id of waiting) {
      this.held.add(id);
      this.unstarted.add(id);
    }
    let lines = this.takePendingForgets();
    if (ids.length > 0) lines += `+${JSON.stringify(ids)}\n`;
    if (waiting.length > 0) lines += `~${JSON.stringify(waiting)}\n`;
    this.append(lines);
  }

  /** Records held, waiting ids as started; returns once the line is written (before they start). */
  started(ids: readonly string[]): void {
    const started = ids.filter((id) => this.unstarted.delete(id));
    if (started.length === 0) return;
    this.append(`${this.takePendingForgets()}>${JSON.stringify(started)}\n`);
  }

  /** Records ids as no longer held; the line is written with the next one (see above). */
  forget(ids: readonly string[]): void {
    const forgotten = ids.filter((id) => this.held.delete(id));
    for (const id of forgotten) this.unstarted.delete(id);
    if (forgotten.length === 0) return;
    this.pendingForgets += `-${JSON.stringify(forgotten)}\n`;
    if (this.pendingForgets.length >= PENDING_FORGETS_MAX) {
      this.append(this.takePendingForgets());
    }
  }

  /** Writes the `-` lines that wait for the next write. */
  flush(): void {
    if (this.pendingForgets !== '' && this.fd !== null) this.append(this.takePendingForgets());
  }

  /** Writes what waits and closes; never throws for the write (a lost `-` is harmless, see above). */
  close(): void {
    try {
      this.flush();
    } catch {
      // The pool looks up those ids and finds them stored.
    } finally {
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
    }
  }

  /** The ids a journal says are held, started or not; see readHolding. */
  static read(path: string): string[] {
    return HeldJournal.readHolding(path).held;
  }

  /**
   * The ids a journal says are held, and which of them never started; none
   * when there is no journal. Never throws. A damaged line (the child died inside the write, or the disk
   * filled) is skipped: a lost `+` leaves its ids to the pool's search of the
   * running tasks, and a lost `-` only makes the pool look up tasks that are
   * stored already, which it leaves alone.
   */
  static readHolding(path: string): JournalHolding {
    const held = new Set<string>();
    const unstarted = new Set<string>();
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      // The child never held a task, or the journal is gone.
      return { held: [], unstarted: [] };
    }
    for (const line of text.split('\n')) {
      let ids: unknown;
      try {
        ids = JSON.parse(line.slice(1));
      } catch {
        continue;
      }
      if (!Array.isArray(ids)) continue;
      for (const id of ids) {
        if (typeof id !== 'string') continue;
        switch (line[0]) {
          case '+':
            held.add(id);
            break;
          case '~':
            held.add(id);
            unstarted.add(id);
            break;
          case '>':
            unstarted.delete(id);
            break;
          case '-':
            held.delete(id);
            unstarted.delete(id);
            break;
        }
      }
    }
    return { held: [...held], unstarted: [...unstarted].filter((id) => held.has(id)) };
  }

  /** Removes a journal and any compaction it left half done; never throws (what is left is a small file in a temporary folder). */
  static remove(path: string): void {
    for (const file of [path, `${path}.next`]) {
      try {
        rmSync(file, { force: true });
      } catch {
        // Not there to remove (its folder could never be made).
      }
    }
  }

  private takePendingForgets(): string {
    const lines = this.pendingForgets;
    this.pendingForgets = '';
    return lines;
  }

  private append(line: string): void {
    const fd = (this.fd ??= HeldJournal.open(this.path));
    writeAll(fd, line);
    this.appended += line.length;
    if (this.appended >= COMPACT_AFTER_BYTES) this.compact();
  }

  private compact(): void {
    const next = `${this.path}.next`;
    const fd = openSync(next, 'w');
    try {
      const started = [...this.held].filter((id) => !this.unstarted.has(id));
      let lines = started.length > 0 ? `+${JSON.stringify(started)}\n` : '';
      if (this.unstarted.size > 0) lines += `~${JSON.stringify([...this.unstarted])}\n`;
      if (lines !== '') writeAll(fd, lines);
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.path);
    // The next append opens the compacted file; this descriptor holds the replaced one.
    const replaced = this.fd;
    this.fd = null;
    this.appended = 0;
    if (replaced !== null) closeSync(replaced);
  }

  /** Opens for appending; the folder is made again if something cleaned it away. */
  private static open(path: string): number {
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, 'a');
  }
}

/** Writes the whole line or throws: a short write would glue the next line to half of this one. */
function writeAll(fd: number, line: string): void {
  const bytes = Buffer.from(line);
  const written = writeSync(fd, bytes);
  if (written !== bytes.length) {
    throw new Error(`wrote ${written} of ${bytes.length} bytes (is the disk full?)`);
  }
}
