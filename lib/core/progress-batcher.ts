import { AttemptProgress, type ProgressEntry, type ProgressWrites } from './attempt-progress';
import { PROGRESS_INTERVAL_MS } from './task-progress';
import type { TaskRecord } from './task-record.interface';

/**
 * Stores the entries of one backend alias in one call; resolves once they
 * are stored or refused, and never rejects (the caller reports its own failures).
 */
export type ProgressBatchStore = (
  alias: string,
  entries: readonly ProgressEntry[],
) => Promise<void>;

/**
 * The progress writes of one process (one per TaskRunner): a report only
 * records its attempt's latest value (AttemptProgress); while any value
 * waits, ONE timer, every PROGRESS_INTERVAL_MS, writes every waiting value
 * of an alias in one store call, however many tasks run. So an attempt is
 * written at most once per interval (the timer is set again only after it
 * fired, or once nothing waited), always its latest value; an attempt
 * whose previous write is still under way (a slow store) waits one more
 * interval, so its writes never reorder; and an attempt that ended is no
 * longer written (its outcome carries its last value). No timer runs while
 * nothing waits.
 *
 * @internal
 */
export class ProgressBatcher implements ProgressWrites {
  /** Attempts whose latest value waits to be written, in the order they first reported. */
  private readonly waiting = new Set<AttemptProgress>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: ProgressBatchStore,
    private readonly intervalMs: number = PROGRESS_INTERVAL_MS,
  ) {}

  /** The progress of the attempt `record` (a RUNNING record as leased), made at its first report. */
  attempt(record: TaskRecord): AttemptProgress {
    return new AttemptProgress(record, this);
  }

  /** `attempt` has a value waiting: written when the interval under way ends. */
  add(attempt: AttemptProgress): void {
    this.waiting.add(attempt);
    this.timer ??= setTimeout(this.writeWaiting, this.intervalMs);
  }

  /** `attempt` ended: what waits of it is not written. */
  remove(attempt: AttemptProgress): void {
    this.waiting.delete(attempt);
    if (this.waiting.size > 0 || this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  /** Writes the values of `attempts` (of one alias) in one store call; resolves once it ended. */
  write(attempts: readonly AttemptProgress[]): Promise<void> {
    const entries = attempts.map((attempt) => attempt.take());
    const done = (): void => {
      for (const attempt of attempts) attempt.writing = null;
    };
    // A store that broke its word and rejected still ends the write: progress never fails a task.
    const written = this.store(attempts[0].record.task.backend, entries).then(done, done);
    for (const attempt of attempts) attempt.writing = written;
    return written;
  }

  private readonly writeWaiting = (): void => {
    this.timer = null;
    const byAlias = new Map<string, AttemptProgress[]>();
    for (const attempt of this.waiting) {
      // Its previous write is still under way: it waits one more interval.
      if (attempt.writing !== null) continue;
      this.waiting.delete(attempt);
      const alias = attempt.record.task.backend;
      const group = byAlias.get(alias);
      if (group === undefined) byAlias.set(alias, [attempt]);
      else group.push(attempt);
    }
    for (const attempts of byAlias.values()) void this.write(attempts);
    if (this.waiting.size > 0) this.timer = setTimeout(this.writeWaiting, this.intervalMs);
  };
}
