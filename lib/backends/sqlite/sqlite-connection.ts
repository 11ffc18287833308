import type { Database } from 'better-sqlite3';

import { BackendUnavailableError, backendClosed, sqliteUnavailable } from '../../core';
import { ensureParentFolder, type ResolvedSqliteBackendConfig } from './sqlite-backend-options';
import { loadSqliteDriver } from './sqlite-driver';
import { migrate } from './sqlite-schema';
import { SqliteStatements } from './sqlite-statements';

/**
 * One SqliteBackend's connection to its file: opened, configured and migrated
 * when it is built, with every statement prepared. Every database call runs
 * through `guard`, so a closed backend or a SQLite failure is always a
 * BackendUnavailableError naming the alias and the file.
 *
 * @internal
 */
export class SqliteConnection {
  readonly db: Database;
  readonly sql: SqliteStatements;
  private isClosed = false;

  /**
   * @throws InvalidBackendConfigError when better-sqlite3 is not installed.
   * @throws BackendUnavailableError when the file cannot be opened or migrated.
   */
  constructor(
    private readonly alias: string,
    private readonly config: ResolvedSqliteBackendConfig,
  ) {
    const Driver = loadSqliteDriver(alias);
    let db: Database | undefined;
    try {
      ensureParentFolder(config.filename);
      db = new Driver(config.filename, { timeout: config.busyTimeout });
      configureConnection(db, config.busyTimeout, config.synchronous);
      migrate(db);
      this.sql = new SqliteStatements(db);
    } catch (error) {
      db?.close();
      throw new BackendUnavailableError(
        sqliteUnavailable(alias, config.filename, errorText(error)),
        { cause: error },
      );
    }
    this.db = db;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Runs a database call; a closed backend or a SQLite failure becomes BackendUnavailableError. */
  guard<T>(run: () => T): T {
    if (this.isClosed) {
      throw new BackendUnavailableError(backendClosed(this.alias));
    }
    try {
      return run();
    } catch (error) {
      if (isSqliteError(error)) {
        throw new BackendUnavailableError(
          sqliteUnavailable(this.alias, this.config.filename, errorText(error)),
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** Runs reads in one read transaction, so they see one consistent state (WAL: never blocks writers). */
  snapshot<T>(read: () => T): T {
    return this.db.transaction(read).deferred();
  }

  close(): void {
    this.isClosed = true;
    this.db.close();
  }
}

/**
 * Connection-level settings. WAL lets readers (the idle check, peek,
 * telemetry) run beside the one writer; the busy timeout makes a writer wait
 * for another process's short transaction instead of failing with SQLITE_BUSY.
 */
function configureConnection(
  db: Database,
  busyTimeoutMs: number,
  synchronous: 'NORMAL' | 'FULL',
): void {
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // Switching to WAL needs a moment of exclusive access; the busy timeout above covers a racing process.
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = OFF');
}

/**
 * Recognised by shape, not by class (not even by `instanceof Error`): the
 * native addon keeps the SqliteError class of the first copy of better-sqlite3
 * loaded in the process, which need not be the copy (or the realm) this
 * module sees, e.g. with two installs or jest's per-file module registries.
 */
const isSqliteError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_');
};

/** An error as `Name: message`, for log lines and BackendUnavailableError messages. */
export const errorText = (error: unknown): string => {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  return typeof message === 'string'
    ? `${typeof name === 'string' ? name : 'Error'}: ${message}`
    : String(error);
};
