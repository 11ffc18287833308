/**
 * What the Postgres backend says to a user: a missing driver, a server it
 * cannot use, a full disk, a schema written by a newer release. Each names
 * the backend and its target, and what to do.
 */
import { shown } from '../../core/shown';

export const postgresDriverMissing = (alias: string): string =>
  `Threadmill backend ${shown(alias)} uses PostgresBackend, but the optional peer dependency pg ` +
  `is not installed. Run \`npm install pg@8\`, or configure this alias with another backend.`;

/** Why a connection could not be made, so the message says what to check. */
export type PostgresRefusal = 'unreachable' | 'auth' | 'database' | 'other';

const CHECKS: Record<PostgresRefusal, string> = {
  unreachable:
    "Check that the server runs at the url's host and port and accepts connections from this " +
    'machine (its listen_addresses, a firewall, the host name).',
  auth:
    "Check the url's user and password, and that the server's pg_hba.conf lets that user " +
    'connect from this machine to that database.',
  database: "Create the database (createdb <name>), or correct the url's database name.",
  other:
    'Check that the server runs and accepts connections from this machine, and that the ' +
    "url's user, password and database are right.",
};

export const postgresUnavailable = (
  alias: string,
  target: string,
  reason: string,
  refusal: PostgresRefusal = 'other',
): string =>
  `Threadmill backend ${shown(alias)} cannot use Postgres at ${target} (${reason}). ` +
  CHECKS[refusal];

export const postgresStatementTimeout = (alias: string, target: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: Postgres at ${target} cancelled a statement that ran past ` +
  `its statement_timeout (${reason}), and rolled back its transaction: nothing of it was stored. ` +
  `Retry it. If it keeps happening, look for a session that holds a lock on the schema's tables ` +
  `(pg_locks, pg_stat_activity), or raise statement_timeout for this app's role.`;

export const postgresFull = (alias: string, target: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the disk of Postgres at ${target} is full (${reason}), so ` +
  `the write was refused and nothing of it was stored. Retry once space is freed: free disk ` +
  `space on the server, or keep less (a shorter resultTtl, fewer waiting tasks).`;

export const postgresSchemaTooNew = (
  alias: string,
  schema: string,
  found: number,
  known: number,
): string =>
  `Threadmill backend ${shown(alias)}: the Postgres schema ${shown(schema)} is at version ` +
  `${found}, written by a newer release of @threadmill/nestjs (this one knows versions up to ` +
  `${known}). Upgrade @threadmill/nestjs in this app to the release the other apps of this ` +
  `database run, or give this alias another schema.`;

export const postgresSchemaBehind = (
  alias: string,
  schema: string,
  found: number,
  needed: number,
): string =>
  `Threadmill backend ${shown(alias)}: the Postgres schema ${shown(schema)} is at version ` +
  `${found}, and this release needs version ${needed}. The backend's option migrate is false, ` +
  `so it does not migrate at start: run \`threadmill migrate --alias ${shown(alias)}\` with this ` +
  `release first (in the deploy, before the apps start), or set migrate to true.`;

export const postgresListenerLost = (alias: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the connection that listens for wake-ups and feeds ` +
  `was lost (${reason}); connecting again.`;
