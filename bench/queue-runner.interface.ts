import type { CliStartSample } from './cli-start';

/** Called as a consumer starts a task, with the number the producer put in it. */
export type TaskStartListener = (seq: number) => void;

/** A consumer running in this process until stopped. */
export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * One queue library, driven the same way for every figure. Every method works
 * on the one Redis the benchmark started (or, for a runner with another
 * `store`, on its own store); the benchmark empties it between scenarios, so
 * each scenario starts from nothing.
 */
export interface QueueRunner {
  readonly name: string;
  /**
   * Where the queue lives; default 'redis'. The Redis-only figures (round
   * trips, Redis commands, Redis CPU, Redis memory) are not taken for another store.
   */
  readonly store?: 'redis' | 'sqlite';
  /**
   * false when the library's Redis client is not ioredis, whose `sendCommand`
   * RoundTripCounter wraps: its round trips go unseen, so they are reported
   * as not measured rather than as zero. Default true.
   */
  readonly roundTripsCounted?: boolean;
  /** Empties a store the benchmark's Redis reset does not reach, before each scenario. */
  reset?(): Promise<void>;

  /** Stores `n` no-op tasks, bulk and several batches in flight (untimed set-up). */
  fill(n: number, payload?: string): Promise<void>;
  /**
   * Consumes `n` waiting tasks with `slots` concurrent slots in this process and
   * resolves once all `n` are acknowledged. `prepare` connects whatever the
   * consumer needs first, so the timed `run` measures consuming only.
   */
  prepareDrain(n: number, slots: number): Promise<{ run(): Promise<void>; close(): Promise<void> }>;

  /**
   * Readies what the enqueue figures go through, untimed, after the store
   * was emptied: Threadmill's runners boot the Nest context whose
   * TaskService they enqueue through (it stays up while its store does).
   */
  prepareEnqueue?(): Promise<void>;
  /** One enqueue awaited after the other, through the library's public enqueue. */
  enqueueSequential(n: number): Promise<void>;
  /**
   * As enqueueSequential, each with a unique key of its own (so each makes a
   * task): what a key costs. Only Threadmill's runners have it.
   */
  enqueueSequentialKeyed?(n: number): Promise<void>;
  /**
   * Caps how many of the queue's tasks run at once, across every consumer
   * (Threadmill's queue concurrency limit), until the next scenario empties
   * the store. Only Threadmill's runners have it.
   */
  limitConcurrency?(concurrency: number): Promise<void>;
  /** `inFlight` enqueues outstanding at any time. */
  enqueueConcurrent(n: number, inFlight: number): Promise<void>;
  /**
   * As enqueueConcurrent, below the public API: records built by the harness
   * straight to the backend, so the gap to enqueueConcurrent is what the
   * public call adds. Only Threadmill's runners have it.
   */
  enqueueConcurrentBackendLevel?(n: number, inFlight: number): Promise<void>;
  /** The library's bulk call (enqueueMany / addBulk / saveAll), `batch` tasks per call, one call at a time. */
  enqueueBulk(n: number, batch: number): Promise<void>;

  /**
   * Stores `schedules` schedules none of which comes due during the run, and
   * returns the schedule tick of a pool's maintenance pass on them (resolving
   * with the ticks it enqueued). Only Threadmill's Redis runner has it.
   */
  prepareSchedulePasses?(schedules: number): Promise<() => Promise<number>>;

  /**
   * `waits` times: a task enqueued and leased, another instance of the
   * backend waiting for its result, then the task acknowledged; resolves with
   * each wait's latency from the acknowledge to the wait resolving (ms), see
   * bench/wait-latency.ts. Only Threadmill's Redis runner has it.
   */
  measureWaits?(waits: number): Promise<number[]>;

  /**
   * Stores `waiting` tasks (untimed), then opens the dashboard's overview on
   * them `loads` times in Chromium and returns each time until its counts
   * show (ms): bench/dashboard-paint.ts. Only Threadmill's Redis runner has it.
   */
  measureDashboardPaint?(waiting: number, loads: number): Promise<number[]>;

  /**
   * Starts the sample's CLI on the runner's store `starts` times per
   * command and returns each start's times (bench/cli-start.ts). Only
   * Threadmill's Redis runner has it.
   */
  measureCliStart?(starts: number): Promise<CliStartSample[]>;

  /**
   * Stores `tasks` tasks (untimed) and returns the run of a consumer with as
   * many slots, each task ticking every ms for `durationMs` and, when
   * `reporting`, reporting progress each tick (see tickingTask). Only
   * Threadmill's runners have it.
   */
  prepareProgress?(
    tasks: number,
    reporting: boolean,
    durationMs: number,
  ): Promise<{ run(): Promise<void> }>;

  /** An idle consumer with `slots` slots that reports each task it starts. */
  startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer>;
  /** Enqueues one task carrying `seq`. */
  enqueueOne(seq: number): Promise<void>;

  close(): Promise<void>;
}

/** Runs `count` async jobs with at most `limit` in flight. */
export async function inParallel(
  count: number,
  limit: number,
  job: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

/** Tasks per bulk call when a runner fills its queue (untimed set-up). */
export const FILL_BATCH = 1000;

/** Stores `n` tasks in bulk calls of FILL_BATCH, `inFlight` calls at a time; `store(size)` makes one call. */
export async function fillInBatches(
  n: number,
  inFlight: number,
  store: (size: number) => Promise<unknown>,
): Promise<void> {
  const batches = Math.ceil(n / FILL_BATCH);
  await inParallel(batches, inFlight, async (b) => {
    await store(Math.min(FILL_BATCH, n - b * FILL_BATCH));
  });
}
