import { ThreadmillError } from './threadmill.error';

/**
 * The store's data is damaged (a SQLite file whose pages are not what SQLite
 * wrote, or a file that is not a database at all), so what it would store or
 * answer cannot be trusted. No retry helps: a worker pool stops at once
 * (the command exits with `ExitCode.StoreCorrupt`), and the file has to be
 * restored from a backup or moved aside; the message names it.
 *
 * @publicApi
 */
export class StoreCorruptError extends ThreadmillError {
  readonly code = 'STORE_CORRUPT';
}
