/**
 * How a cancel reaches a task its pool has leased, and why a cancel that
 * answered before the task started means it never starts. The request is
 * stored for the holding pool, whose children each read their pool's
 * requests every CANCEL_POLL_MS. A child starts a leased task only when its
 * last read was sent less than CANCEL_VIEW_FRESH_MS ago (else it reads
 * first) and did not name the task. `cancel()` answers once the holder
 * confirmed (the task is final, or its request was handled while it runs),
 * or after CANCEL_ANSWER_WITHIN_MS at the latest: longer than a child's view
 * may be old, so a child that starts the task after that answer read after
 * the request was stored, and saw it.
 */

/** How often each child of a pool reads its pool's cancel requests (one small read). */
export const CANCEL_POLL_MS = 250;

/**
 * How long after it last held a task a child goes on reading its pool's
 * cancel requests. Then it stops until it holds one again, so an idle pool
 * sends no reads; the first task it leases after that reads before it
 * starts (its view is too old to tell), which costs that task one round trip.
 */
export const CANCEL_IDLE_AFTER_MS = 5_000;

/** Oldest a child's read of its cancel requests may be when it starts a leased task. */
export const CANCEL_VIEW_FRESH_MS = 1_000;

/** Longest `cancel()` waits for the holder of a leased task to confirm (see above). */
export const CANCEL_ANSWER_WITHIN_MS = 1_500;

/**
 * A cancel request older than this is dropped unhandled: its task finished
 * (or left the pool) before any child of the pool saw it.
 */
export const CANCEL_REQUEST_TTL_MS = 60_000;
