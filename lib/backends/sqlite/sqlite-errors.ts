import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import { StoreFullError } from '../../core/errors/store-full.error';
import type { ThreadmillError } from '../../core/errors/threadmill.error';
import { sqliteCorrupt, sqliteFull, sqliteNotADatabase } from '../../core/store.messages';
import { sqliteUnavailable } from '../../core/threadmill.messages';

/**
 * Recognised by shape, not by class (not even by `instanceof Error`): the
 * native addon keeps the SqliteError class of the first copy of better-sqlite3
 * loaded in the process, which need not be the copy (or the realm) this
 * module sees, e.g. with two installs or jest's per-file module registries.
 *
 * @internal
 */
export const isSqliteError = (error: unknown): error is { code: string; message: string } => {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_');
};

/** An error as `Name: message`, for log lines and error messages. @internal */
export const errorText = (error: unknown): string => {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  return typeof message === 'string'
    ? `${typeof name === 'string' ? name : 'Error'}: ${message}`
    : String(error);
};

/**
 * The primary result code of a SQLite error: better-sqlite3 reports the
 * extended one (SQLITE_CORRUPT_INDEX, SQLITE_IOERR_WRITE), whose prefix it is.
 */
const primaryCode = (code: string): string => /^SQLITE_[A-Z]+/.exec(code)?.[0] ?? code;

/**
 * What a failure of the file at `filename` means for the caller:
 * - SQLITE_FULL: the disk is full; SQLite rolled the write back whole, so
 *   nothing of it was stored and the same call succeeds once there is space
 *   (StoreFullError, retryable, as a full Redis);
 * - SQLITE_CORRUPT and SQLITE_NOTADB: the file is damaged or is no database;
 *   no retry can change that (StoreCorruptError, not retryable);
 * - anything else (a lock held too long, a folder that is not writable):
 *   BackendUnavailableError, retryable.
 *
 * @internal
 */
export function sqliteFailure(alias: string, filename: string, error: unknown): ThreadmillError {
  const reason = errorText(error);
  switch (isSqliteError(error) ? primaryCode(error.code) : null) {
    case 'SQLITE_FULL':
      return new StoreFullError(sqliteFull(alias, filename, reason), { cause: error });
    case 'SQLITE_CORRUPT':
      return new StoreCorruptError(sqliteCorrupt(alias, filename, reason), { cause: error });
    case 'SQLITE_NOTADB':
      return new StoreCorruptError(sqliteNotADatabase(alias, filename, reason), { cause: error });
    default:
      return new BackendUnavailableError(sqliteUnavailable(alias, filename, reason), {
        cause: error,
      });
  }
}
