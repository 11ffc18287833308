import type BetterSqlite3 from 'better-sqlite3';

import { InvalidBackendConfigError, sqliteDriverMissing } from '../../core';

/** The better-sqlite3 constructor. @internal */
export type SqliteDriver = typeof BetterSqlite3;

const isModuleNotFound = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' &&
  String((error as { message?: unknown }).message).includes('better-sqlite3');

/**
 * Loads better-sqlite3 on first use. It is an optional peer dependency (a
 * native module most Redis users never need), so nothing may import it at
 * module load: importing the package barrel must work without it installed.
 *
 * @throws InvalidBackendConfigError naming the alias when it is not installed.
 * @internal
 */
export function loadSqliteDriver(alias: string): SqliteDriver {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is what keeps the peer optional
    return require('better-sqlite3') as SqliteDriver;
  } catch (error) {
    if (isModuleNotFound(error)) {
      throw new InvalidBackendConfigError(sqliteDriverMissing(alias), { cause: error });
    }
    throw error;
  }
}
