import type * as Pg from 'pg';
import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { requireOptional } from '../../utils/require-optional.util';
import { postgresDriverMissing } from './postgres.messages';

/** The pg module (node-postgres). @internal */
export type PostgresDriver = typeof Pg;

/**
 * Loads pg on first use. It is an optional peer dependency, so nothing may
 * import it at module load: importing the package must work without it.
 *
 * @throws InvalidBackendConfigError naming the alias when it is not installed.
 * @internal
 */
export function loadPostgresDriver(alias: string): PostgresDriver {
  const driver = requireOptional<PostgresDriver>('pg');
  if (driver === null) throw new InvalidBackendConfigError(postgresDriverMissing(alias));
  return driver;
}
