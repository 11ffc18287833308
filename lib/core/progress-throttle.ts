import { PROGRESS_INTERVAL_MS, progressJson, storedProgress } from './task-progress';

/**
 * Stores one attempt's progress: `store` receives the text a backend keeps
 * (storedProgress) and resolves once it is stored or refused; it never
 * rejects (the caller reports its own failures).
 */
export type ProgressStore = (stored: string, value: unknown) => Promise<void>;

/**
 * The throttle behind `TaskContext.progress`: at most one store write per
 * PROGRESS_INTERVAL_MS, each of the latest value reported, the first one an
 * interval after the first report (a task shorter than that writes only its
 * last value, before its outcome). A report between
 * writes only replaces the waiting value (a number is kept as it is, so a
 * report costs a type check and an assignment); the first report of an
 * interval sets the one timer that writes it. Writes go one at a time: one
 * still under way when the next is due defers it by an interval. `finish` writes what is still
 * waiting: the attempt's outcome is stored after it, so the last value is never lost.
 *
 * @internal
 */
export class ProgressThrottle {
  /** Waiting to be stored: a number, or the JSON text of any other value. */
  private waiting: number | string | null = null;
  private waitingJson = false;
  private timer: NodeJS.Timeout | null = null;
  /** When the last write started (ms, Date.now()); made at the first report, so the first write waits an interval. */
  private lastWriteAt = Date.now();
  /** The write under way: one at a time, so a slow store never reorders them. */
  private inFlight: Promise<void> | null = null;
  private finished = false;

  constructor(
    private readonly taskName: string,
    private readonly attempt: number,
    private readonly store: ProgressStore,
    private readonly intervalMs: number = PROGRESS_INTERVAL_MS,
  ) {}

  /** Takes `value` as the latest progress; throws InvalidTaskProgressError for a value it cannot store. */
  report(value: unknown): void {
    if (typeof value === 'number' && Number.isFinite(value)) {
      this.waiting = value;
      this.waitingJson = false;
    } else {
      this.waiting = progressJson(value, this.taskName);
      this.waitingJson = true;
    }
    // After the outcome, a report would only be refused by the store: it is dropped here.
    if (this.timer !== null || this.finished) return;
    const wait = Math.max(0, this.lastWriteAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => this.write(), wait);
  }

  /** Writes what is waiting now and resolves once every write has ended; later reports are dropped. */
  async finish(): Promise<void> {
    this.finished = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight !== null) await this.inFlight;
    this.write();
    if (this.inFlight !== null) await this.inFlight;
  }

  private write(): void {
    this.timer = null;
    const value = this.waiting;
    if (value === null) return;
    if (this.inFlight !== null) {
      // A slow store: the value keeps waiting (and keeps being replaced) for one more interval.
      if (!this.finished) this.timer = setTimeout(() => this.write(), this.intervalMs);
      return;
    }
    this.waiting = null;
    this.lastWriteAt = Date.now();
    const json = this.waitingJson ? (value as string) : String(value);
    const reported: unknown = this.waitingJson ? (JSON.parse(json) as unknown) : value;
    this.inFlight = this.store(storedProgress(this.attempt, json), reported).finally(() => {
      this.inFlight = null;
    });
  }
}
