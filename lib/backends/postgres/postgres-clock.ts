import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';

/** Round trips per measurement: the reading of the shortest is kept. */
const SAMPLES = 3;
/** How long one measurement is read from before the next is taken (ms). */
const REFRESH_MS = 60_000;

/** The statement that reads the server's clock, in whole ms since the epoch. */
export const SERVER_MS = `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms`;

/**
 * The database server's clock, as this process reads it without a round
 * trip: every time a PostgresBackend stores or compares (lease and heartbeat
 * deadlines, due times, windows, expiries, schedule cursors) is on it, so
 * hosts whose clocks are minutes apart agree on every deadline, as they do
 * on Redis's clock. Measured when the backend connects: the server's time
 * read in SAMPLES round trips, the one of the shortest kept and dated at its
 * midpoint on this process's monotonic clock, from which it moves on; so a
 * wall clock that is off, or set while it runs, changes nothing. Its error
 * is at most half that round trip, plus the monotonic clock's drift since
 * (a few ms a minute at most): measured again, in the background, once a
 * reading is REFRESH_MS old. A time a caller set on its own clock (a
 * runAfter) is not converted with it: the caller's wait left (delayUntil)
 * is added to it.
 *
 * @internal
 */
export class PostgresClock {
  private baseMs = 0;
  private baseMono = 0;
  private error = Number.POSITIVE_INFINITY;
  /** When (monotonic ms) the next measurement is due; one at a time, failed or not. */
  private nextMeasure = Number.POSITIVE_INFINITY;

  constructor(
    private readonly alias: string,
    private readonly logger: LoggerService,
    /** One reading of the server's clock (ms), on any connection; null when there is none to use. */
    private readonly read: () => Promise<number | null>,
  ) {}

  /** Half the round trip of the reading in use (ms): the most `now()` is off, drift aside. */
  get errorMs(): number {
    return this.error;
  }

  /** Takes a measurement through `read` (the first, on the connection that migrated). */
  async measure(read: () => Promise<number | null> = this.read): Promise<void> {
    let best: { ms: number; mono: number; rtt: number } | null = null;
    for (let sample = 0; sample < SAMPLES; sample++) {
      const sent = performance.now();
      const ms = await read();
      const received = performance.now();
      if (ms === null) return;
      const rtt = received - sent;
      if (!best || rtt < best.rtt) best = { ms, mono: (sent + received) / 2, rtt };
    }
    if (!best) return;
    this.baseMs = best.ms;
    this.baseMono = best.mono;
    this.error = best.rtt / 2;
    this.nextMeasure = best.mono + REFRESH_MS;
  }

  /** The server's time now (ms since the epoch). Only after the first measurement. */
  now(): number {
    const mono = performance.now();
    if (mono >= this.nextMeasure) this.refresh(mono);
    return this.at(mono);
  }

  /** The server's time at `mono` (performance.now() of this process). */
  at(mono: number): number {
    return Math.round(this.baseMs + (mono - this.baseMono));
  }

  private refresh(mono: number): void {
    // Not again before REFRESH_MS, even when this one fails.
    this.nextMeasure = mono + REFRESH_MS;
    this.measure().catch((error: unknown) => {
      // The reading in use stays: a server out of reach fails the calls that need it anyway.
      this.logger.warn(
        `Reading the Postgres clock of "${this.alias}" failed (${String(error)}); ` +
          'the last reading stays in use.',
      );
    });
  }
}
