/** Everything started by this run, stopped in reverse order, also on Ctrl-C. */
export class Cleanup {
  private readonly steps: (() => Promise<void>)[] = [];
  private running: Promise<void> | null = null;

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step();
        } catch (error) {
          console.error('cleanup step failed (continuing):', error);
        }
      }
    })();
    return this.running;
  }
}

/**
 * Ctrl-C, SIGTERM and SIGHUP run the cleanup, then exit 130: a benchmark
 * stopped half-way must not leave a redis-server, a pool or a git worktree behind.
 */
export function cleanUpOnSignals(cleanup: Cleanup): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping what the benchmark started`);
      void cleanup.run().finally(() => process.exit(130));
    });
  }
}

/**
 * An error no code awaits (a library's pool emitting 'error' with no
 * listener) runs the cleanup too, then exits 1, instead of leaving a private
 * server behind.
 */
export function cleanUpOnCrash(cleanup: Cleanup): void {
  process.once('uncaughtException', (error) => {
    console.error('uncaught error: stopping what the benchmark started', error);
    void cleanup.run().finally(() => process.exit(1));
  });
}

/** A log line on stderr, stamped with the time of day (the report goes to stdout). */
export function log(line: string): void {
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}
