/**
 * What `migrate` found of a store's schema and left it at (the `migrate`
 * command prints it). Versions count the backend's own migrations: `from`
 * equal to `to` means there was nothing to do.
 *
 * @publicApi
 */
export interface StoreMigration {
  /** The schema version the store was at (0: it had none). */
  readonly from: number;
  /** The version it is at now: the one this release writes and reads. */
  readonly to: number;
  /** Where the schema lives, for messages: a Postgres schema and url, a SQLite file. */
  readonly where: string;
}
