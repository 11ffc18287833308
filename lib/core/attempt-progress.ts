import { progressJson, storedProgress } from './task-progress';
import type { TaskRecord } from './task-record.interface';

/**
 * One progress write: `stored` (as storedProgress made it) for the attempt
 * `record` (as leased), and `value` as it was reported.
 */
export interface ProgressEntry {
  readonly record: TaskRecord;
  readonly stored: string;
  readonly value: unknown;
}

/**
 * What an attempt's progress asks of its process's batcher: ProgressBatcher
 * implements it, so this file needs nothing of the batcher's.
 *
 * @internal
 */
export interface ProgressWrites {
  /** Its latest value waits to be written. */
  add(attempt: AttemptProgress): void;
  /** It ended: what waits of it is not written. */
  remove(attempt: AttemptProgress): void;
  /** Writes the waiting values of `attempts` now; resolves once written or refused. */
  write(attempts: readonly AttemptProgress[]): Promise<void>;
}

/**
 * The progress of one running attempt, behind `TaskContext.progress`: its
 * latest value, waiting in its process's ProgressBatcher for the next write
 * (a report between writes only replaces it: a number is kept as it is, so
 * a report costs a type check and an assignment), and carried by the
 * attempt's outcome at its end (see `end`). Without a batcher (a context
 * built by hand) a report is checked and kept, never written.
 *
 * @internal
 */
export class AttemptProgress {
  /** The latest value: a number, or the JSON text of any other value; null before the first report. */
  private latest: number | string | null = null;
  private latestJson = false;
  /** Whether the latest value waits in the batcher (not yet taken by a write). */
  private unwritten = false;
  private ended = false;
  /**
   * The batcher's write of this attempt under way, set and cleared by the
   * batcher: one at a time, so one task's writes never reorder.
   */
  writing: Promise<void> | null = null;

  constructor(
    readonly record: TaskRecord,
    private readonly batcher: ProgressWrites | null,
  ) {}

  /** Takes `value` as the latest; throws InvalidTaskProgressError for a value it cannot store. */
  report(value: unknown): void {
    const number = typeof value === 'number' && Number.isFinite(value);
    const json = number ? null : progressJson(value, this.record.task.name);
    // After the outcome, a report would only be refused by the store: it is dropped here.
    if (this.ended) return;
    this.latest = json ?? (value as number);
    this.latestJson = !number;
    if (this.unwritten) return;
    this.unwritten = true;
    this.batcher?.add(this);
  }

  /** The latest value for a write (the batcher's): it no longer waits. */
  take(): ProgressEntry {
    this.unwritten = false;
    const json = this.latestJson ? (this.latest as string) : String(this.latest);
    return {
      record: this.record,
      stored: storedProgress(this.record.workerIds.length, json),
      value: this.value(),
    };
  }

  /**
   * Ends the attempt's progress at its outcome, which carries the latest
   * value (stored with it, in the same step): what waits is never written
   * on its own, later reports are dropped, and it resolves, with that value,
   * once no write of it is under way, so none lands after the outcome.
   */
  async end(): Promise<unknown> {
    this.stop();
    if (this.writing !== null) await this.writing;
    return this.value();
  }

  /**
   * Ends the attempt's progress by writing the value still waiting, on its
   * own, after any write under way: for an outcome that carries no
   * progress (a failed attempt going back for a retry keeps the value
   * written, shown until its next attempt starts). Resolves once written or refused.
   */
  async endWriting(): Promise<void> {
    const waiting = this.unwritten;
    this.stop();
    if (this.writing !== null) await this.writing;
    if (waiting && this.batcher !== null) await this.batcher.write([this]);
  }

  private stop(): void {
    this.ended = true;
    if (this.unwritten) this.batcher?.remove(this);
    this.unwritten = false;
  }

  /** The latest value as reported: the number, or its JSON parsed. */
  private value(): unknown {
    return this.latestJson ? (JSON.parse(this.latest as string) as unknown) : this.latest;
  }
}
