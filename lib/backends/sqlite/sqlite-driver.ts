import type BetterSqlite3 from 'better-sqlite3';
import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { sqliteDriverMissing } from '../../core/threadmill.messages';
import { requireOptional } from '../../utils/require-optional.util';

/** The better-sqlite3 constructor. @internal */
export type SqliteDriver = typeof BetterSqlite3;

/**
 * Loads better-sqlite3 on first use. It is an optional peer dependency (a
 * native module most Redis users never need), so nothing may import it at
 * module load: importing the package barrel must work without it installed.
 *
 * @throws InvalidBackendConfigError naming the alias when it is not installed.
 * @internal
 */
export function loadSqliteDriver(alias: string): SqliteDriver {
  const driver = requireOptional<SqliteDriver>('better-sqlite3');
  if (driver === null) throw new InvalidBackendConfigError(sqliteDriverMissing(alias));
  return driver;
}
