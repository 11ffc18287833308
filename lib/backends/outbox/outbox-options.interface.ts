/**
 * The outbox of a Redis-backed alias (`outbox` in its RedisBackend options):
 * the app's own Postgres, where an enqueue with a `transaction` override
 * writes its tasks inside the app's transaction. A relay, one process at a
 * time across every app instance and pool, moves each committed task into
 * Redis once, under the id the enqueue answered with. Give `url` or `pool`.
 *
 * @example
 * ```ts
 * const config: BackendConfig = {
 *   backend: RedisBackend,
 *   url: 'redis://localhost:6379/0',
 *   options: { outbox: { url: 'postgres://app@localhost/app' } },
 * };
 * ```
 * @publicApi
 */
export interface RedisOutboxOptions {
  /** The app's Postgres, `postgres://user:password@host:port/database`. */
  url?: string;
  /**
   * The app's pg Pool instead of `url`: its connection settings are used, and it is never
   * closed by Threadmill. The relay opens one connection of its own beside it.
   */
  pool?: OutboxPool;
  /** The schema of the outbox table (created by Threadmill's migrations). Default `threadmill`. */
  schema?: string;
  /**
   * The safety poll (ms): how often the relay looks for committed tasks when no notification
   * came, and how often a process that is not the relay tries to become it. Default 10 s.
   */
  pollInterval?: number;
  /**
   * How long (ms) Redis keeps the mark of a moved task, whatever the task's own retention:
   * a move repeated within it (after a relay died between its move and the row's delete) is
   * refused. Default 24 hours.
   */
  markWindow?: number;
  /** Most tasks one move carries. Default 500. */
  batchSize?: number;
  /** Whether this process takes part in relaying (one at a time does). Default true. */
  relay?: boolean;
}

/**
 * What the outbox uses of a pg `Pool` (written out, so that the main entry
 * point's types need no `pg`): its connection settings and its connections.
 *
 * @publicApi
 */
export interface OutboxPool {
  readonly options: object;
  /**
   * A connection, handed to `callback` (pg's callback form, so a listener is
   * on it before any of its events can fire).
   */
  connect(callback: (error: Error | undefined, client: object | undefined) => void): void;
}
