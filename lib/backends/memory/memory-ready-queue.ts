/** Same order as the Redis ready ZSET: higher priority first, then earlier enqueue. */
export function readyScore(priority: number, enqueuedAtMs: number): number {
  return -priority * 1e13 + enqueuedAtMs;
}

export interface ReadyEntry {
  readonly id: string;
  readonly score: number;
  /** Insertion order breaks ties, so one bulk enqueue keeps its order. */
  readonly seq: number;
}

/**
 * The ready tasks of one queue, kept sorted so taking the best is a shift.
 *
 * @internal
 */
export class MemoryReadyQueue {
  private readonly entries: ReadyEntry[] = [];
  private seq = 0;

  get size(): number {
    return this.entries.length;
  }

  add(id: string, score: number): void {
    const entry = { id, score, seq: this.seq++ };
    // Binary search for the first entry that sorts after the new one.
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = this.entries[mid];
      if (other.score < score || (other.score === score && other.seq < entry.seq)) low = mid + 1;
      else high = mid;
    }
    this.entries.splice(low, 0, entry);
  }

  /** Removes and returns up to `count` best ids. */
  take(count: number): string[] {
    return this.entries.splice(0, count).map((entry) => entry.id);
  }

  /** Up to `count` best ids, left in place. */
  peek(count: number): string[] {
    return this.entries.slice(0, count).map((entry) => entry.id);
  }

  /** Up to `count` entries in order after the one at (score, seq), left in place; from the best without. */
  after(position: { score: number; seq: number } | null, count: number): ReadyEntry[] {
    let low = 0;
    if (position !== null) {
      let high = this.entries.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const other = this.entries[mid];
        const before =
          other.score < position.score ||
          (other.score === position.score && other.seq <= position.seq);
        if (before) low = mid + 1;
        else high = mid;
      }
    }
    return this.entries.slice(low, low + count);
  }

  remove(id: string): boolean {
    const index = this.entries.findIndex((entry) => entry.id === id);
    if (index < 0) return false;
    this.entries.splice(index, 1);
    return true;
  }
}
