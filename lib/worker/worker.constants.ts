import type { TaskBackend } from '../core/task-backend.interface';

/** How long an idle child's acquire blocks before it is re-issued (Redis costs nothing meanwhile). */
export const IDLE_ACQUIRE_WAIT_MS = 5_000;

/** Pause after a failed acquire or acknowledge (Redis down) before trying again. */
export const RETRY_DELAY_MS = 1_000;

/** Period of the pool's summary line. */
export const SUMMARY_INTERVAL_MS = 10_000;

/** Delay before replacing a child that died while booting, so a broken app does not fork in a loop. */
export const BOOT_RETRY_MS = 1_000;

/** How long an urgently stopped child may take to release its tasks before it is killed. */
export const URGENT_GRACE_MS = 10_000;

/**
 * After a child finished its work, the longest its process may linger (e.g.
 * on a timer a hung task left behind) before it exits anyway. The timer is
 * unref'd: a child with nothing left to do exits at once.
 */
export const CHILD_EXIT_GRACE_MS = 2_000;

/** Period of a child's liveness beat to its pool. */
export const LIVENESS_BEAT_MS = 1_000;

/** Period of the pool's check for children whose beats stopped. */
export const LIVENESS_CHECK_MS = 1_000;

/**
 * Default `--liveness-timeout`: how long a child's event loop may stay silent
 * before the pool kills it. Long enough for any event loop that is merely
 * busy; a task that blocks longer on purpose declares `blockingMs`.
 */
export const DEFAULT_LIVENESS_TIMEOUT_MS = 30_000;

/** Environment variable that hands a child the path of its HeldJournal (in a folder its pool made). */
export const WORKER_JOURNAL_ENV = 'THREADMILL_HELD_JOURNAL';

/** Environment variable that hands a child its pool's id (the pool its acquires are recorded under). */
export const WORKER_POOL_ENV = 'THREADMILL_WORKER_POOL_ID';

/**
 * Default `--heartbeat-tolerance`: how long a pool's beats may fail to reach
 * the store before other pools take it for dead and recover its tasks. It
 * beats every maintenance interval, so this is how long an outage (a network blip,
 * a Redis failover) may last without failing anything that runs; the price is
 * that a pool that really died is recovered this long after its death.
 */
export const DEFAULT_HEARTBEAT_TOLERANCE_MS = 30_000;

/**
 * Shortest period of a child's check for tasks whose lease a maintenance pass reaped
 * while they never settled (their slots are then freed). The check runs every
 * max(this, 2 maintenance intervals) and looks only at tasks running that long.
 */
export const LEASE_CHECK_MIN_MS = 1_000;

/** Default `--threads`: one slot, as in Celery and Dramatiq; raise it for I/O-bound tasks. */
export const DEFAULT_THREADS = 1;

/**
 * The heartbeat tolerance a pool uses: the one asked for (default
 * DEFAULT_HEARTBEAT_TOLERANCE_MS), but at least two maintenance intervals,
 * since a beat must outlive the interval between two beats or the pool lapses between them.
 */
export function heartbeatTolerance(
  askedMs: number | undefined,
  backend: Pick<TaskBackend, 'maintenanceIntervalMs'>,
): number {
  return Math.max(askedMs ?? DEFAULT_HEARTBEAT_TOLERANCE_MS, 2 * backend.maintenanceIntervalMs);
}
