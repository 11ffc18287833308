import { statSync } from 'node:fs';

import type { LoggerService } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { backendClosed } from '../../core/threadmill.messages';
import { sqliteEmptyFileInitialised } from '../../core/store.messages';
import { ensureParentFolder, type SqliteBackendSettings } from './sqlite-backend-options';
import { loadSqliteDriver } from './sqlite-driver';
import { isSqliteError, sqliteFailure } from './sqlite-errors';
import { migrate } from './sqlite-schema';
import { SqliteStatements } from './sqlite-statements';

/**
 * One SqliteBackend's connection to its file: opened, configured and migrated
 * when it is built, with every statement prepared. Every database call runs
 * through `guard`, so a closed backend or a SQLite failure is always a typed
 * error naming the alias and the file (see sqliteFailure): a full disk is
 * StoreFullError, a damaged file StoreCorruptError, anything else
 * BackendUnavailableError.
 *
 * No `PRAGMA quick_check` at open: it reads the whole file, 0.8 to 1.0 s for
 * 1M waiting tasks with the file in the page cache and 8.8 s without
 * (583 MB, measured on a 2-core VM), paid by every process that opens it
 * (each command, each pool child). A damaged page is reported by the first
 * statement that reads it instead.
 *
 * @internal
 */
export class SqliteConnection {
  readonly db: Database;
  readonly sql: SqliteStatements;
  /** The schema version the file was at when this connection opened (and migrated) it. */
  readonly foundVersion: number;
  private isClosed = false;

  /**
   * @throws InvalidBackendConfigError when better-sqlite3 is not installed.
   * @throws StoreCorruptError when the file is not a database or is damaged.
   * @throws StoreFullError when the disk is too full to initialise or migrate it.
   * @throws BackendUnavailableError when the file cannot be opened or migrated otherwise.
   */
  constructor(
    private readonly alias: string,
    private readonly settings: SqliteBackendSettings,
    logger: LoggerService,
  ) {
    const Driver = loadSqliteDriver(alias);
    let db: Database | undefined;
    try {
      ensureParentFolder(settings.filename);
      const wasEmpty = isEmptyFile(settings.filename);
      db = new Driver(settings.filename, { timeout: settings.busyTimeout });
      configureConnection(db, settings.busyTimeout, settings.synchronous);
      const foundVersion = migrate(db);
      // SQLite takes an empty file for a new database: say so, a truncated file looks just like it.
      // A file another process created a moment ago is empty too, but that one has migrated it.
      if (wasEmpty && foundVersion === 0) {
        logger.warn(sqliteEmptyFileInitialised(alias, settings.filename));
      }
      this.sql = new SqliteStatements(db);
      this.foundVersion = foundVersion;
    } catch (error) {
      db?.close();
      throw sqliteFailure(alias, settings.filename, error);
    }
    this.db = db;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Runs a database call; a closed backend or a SQLite failure becomes a typed error (sqliteFailure). */
  guard<T>(run: () => T): T {
    if (this.isClosed) {
      throw new BackendUnavailableError(backendClosed(this.alias));
    }
    try {
      return run();
    } catch (error) {
      if (isSqliteError(error)) throw sqliteFailure(this.alias, this.settings.filename, error);
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

/** Whether `filename` exists and holds no byte (a missing one is simply new). */
function isEmptyFile(filename: string): boolean {
  try {
    return statSync(filename).size === 0;
  } catch {
    return false;
  }
}
