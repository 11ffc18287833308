import { setTimeout as sleep } from 'node:timers/promises';

import type { RunningConsumer, TaskStartListener } from '../queue-runner.interface';

/** A drain readied untimed: `run` is the timed part. */
export interface PreparedDrain {
  run(): Promise<void>;
  /** Stops the drain's consumers, finished or not. */
  close(): Promise<void>;
  /**
   * Tasks finished so far: a drain that outlasts its time limit is cut
   * there and measured by this. A runner without it is always waited for.
   */
  finished?(): number;
}

/**
 * One queue library on Postgres, driven the same way for every figure. Each
 * scenario starts from a fresh database: the suite disconnects the runner,
 * drops its database, makes a new one and connects it again, so no figure
 * inherits another's history or bloat.
 */
export interface PostgresQueueRunner {
  readonly name: string;
  /** The library's version as the page names it. */
  readonly version: string;
  /** Connects to an empty database and lays out the library's schema there (untimed). */
  connect(url: string): Promise<void>;
  /** Closes every connection it opened, so its database can be dropped. */
  disconnect(): Promise<void>;
  /** Stores `n` no-op tasks in bulk (untimed set-up). */
  fill(n: number): Promise<void>;
  /** `n` waiting tasks drained by `slots` concurrent slots in this process; run resolves once all `n` are stored as done. */
  prepareDrain(n: number, slots: number): Promise<PreparedDrain>;
  /** Readies what the enqueue figures go through (untimed). */
  prepareEnqueue?(): Promise<void>;
  enqueueSequential(n: number): Promise<void>;
  enqueueConcurrent(n: number, inFlight: number): Promise<void>;
  /** The library's bulk call, `batch` tasks per call, one call at a time. */
  enqueueBulk(n: number, batch: number): Promise<void>;
  /** An idle consumer with `slots` slots that reports each task it starts. */
  startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer>;
  /** Enqueues one task carrying `seq`. */
  enqueueOne(seq: number): Promise<void>;
}

/** How often a drain that saw its last task start looks for the outcomes to be stored. */
const SETTLED_POLL_MS = 5;
/** A drain whose outcomes are not stored by then has lost some: the run fails. */
const SETTLED_LIMIT_MS = 60_000;

/**
 * Counts the tasks a peer's handler starts; `finished` resolves once `n`
 * have started and `settled()` says the store holds no task left unfinished
 * (a peer that stores outcomes after its handler returns is timed to the
 * stored outcome, as Threadmill's drain is).
 */
export class StartedCounter {
  /** Tasks started so far. */
  count = 0;
  private reached: () => void = () => undefined;
  private readonly all: Promise<void>;

  constructor(
    private readonly n: number,
    private readonly settled: () => Promise<boolean>,
  ) {
    this.all = new Promise((resolve) => (this.reached = resolve));
  }

  started(): void {
    if (++this.count === this.n) this.reached();
  }

  async finished(): Promise<void> {
    await this.all;
    const deadline = performance.now() + SETTLED_LIMIT_MS;
    while (!(await this.settled())) {
      if (performance.now() > deadline) {
        throw new Error(
          `outcomes of ${this.n} started tasks not stored after ${SETTLED_LIMIT_MS} ms`,
        );
      }
      await sleep(SETTLED_POLL_MS);
    }
  }
}
