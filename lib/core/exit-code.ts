/**
 * The exit codes of every command, in one table: a command that needs a new
 * outcome adds a code here and never reuses one of these. A worker pool reads
 * its children's exits by it too, so it lives in core.
 *
 * @publicApi
 */
export const ExitCode = {
  /** The command did what it was asked. */
  Success: 0,
  /** The command ran and failed: the store was unreachable, the result does not exist. */
  Failure: 1,
  /** The command line was wrong: unknown command or option, missing or invalid argument. */
  Usage: 2,
  /** `enqueue --wait`: the task ended FAILED (its result, with its errors, is printed). */
  TaskFailed: 3,
  /** `enqueue --wait`: the task ended CANCELLED. */
  TaskCancelled: 4,
  /** `enqueue --wait --timeout`: the task was not final in time; it goes on (its state is printed). */
  WaitTimedOut: 5,
  /**
   * The store is damaged (StoreCorruptError: a SQLite file that is malformed
   * or not a database): no retry can help, so a worker pool stops at once.
   */
  StoreCorrupt: 6,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
