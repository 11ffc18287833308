/**
 * What waits in the outbox of an alias whose store is not the app's
 * database (a Redis alias's, in the app's Postgres): tasks committed, or
 * written by transactions still open, that the relay has not moved yet.
 *
 * @publicApi
 */
export interface OutboxBacklog {
  /** Rows waiting. */
  readonly waiting: number;
  /**
   * Rows the relay set aside, never to be moved as they are: their queue is
   * not on the alias, or their request cannot be read (see docs/transactions.md).
   */
  readonly parked: number;
  /** How long the oldest has waited (ms, on the database's clock); null when none does. */
  readonly oldestAgeMs: number | null;
}
