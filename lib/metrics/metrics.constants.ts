/** The role whose holder exposes the store-wide gauges (see StoreGauges). */
export const STORE_GAUGES_ROLE = 'store-gauges';

/** The scrape interval assumed when none is configured (Prometheus users commonly set 15 s). */
export const DEFAULT_SCRAPE_INTERVAL_MS = 15_000;

/**
 * The store gauges role lasts this many scrape intervals past its last
 * claim: a late scrape or two keeps it, a dead holder loses it that soon.
 */
export const ROLE_LEASE_SCRAPES = 4;

/** Buckets of an attempt's run time (s): from a no-op task to an hour-long batch. */
export const RUN_SECONDS_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600,
];

/** Buckets of a task's wait before it starts (s): from an idle pool to a day of backlog. */
export const WAIT_SECONDS_BUCKETS = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400,
];
