import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { StoreFullError } from '../../core/errors/store-full.error';
import { ThreadmillError } from '../../core/errors/threadmill.error';
import {
  postgresFull,
  postgresStatementTimeout,
  postgresUnavailable,
  type PostgresRefusal,
} from './postgres.messages';

/** SQLSTATEs of a server that shut down or dropped the connection (admin, crash, immediate). */
const TERMINATED = new Set(['57P01', '57P02', '57P03']);
/** Node socket errors of a server out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
/** Codes of a connection that could not be made, each with what its message tells to check. */
const REFUSALS: ReadonlyMap<string, PostgresRefusal> = new Map([
  ['ECONNREFUSED', 'unreachable'],
  ['ENOTFOUND', 'unreachable'],
  ['EAI_AGAIN', 'unreachable'],
  ['ETIMEDOUT', 'unreachable'],
  ['EHOSTUNREACH', 'unreachable'],
  ['ENETUNREACH', 'unreachable'],
  // invalid_password, invalid_authorization_specification (no pg_hba.conf entry, no such role).
  ['28P01', 'auth'],
  ['28000', 'auth'],
  // invalid_catalog_name: the url's database does not exist.
  ['3D000', 'database'],
]);
/** SQLSTATEs a transaction may be run again for: a deadlock or serialization failure. */
const RUN_AGAIN = new Set(['40P01', '40001']);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** A transaction that lost a deadlock or a serialization check: running it again is safe. @internal */
export const isRunAgain = (error: unknown): boolean => RUN_AGAIN.has(codeOf(error) ?? '');

/** A failure of the connection itself (not an answer of the server to a statement). @internal */
export function isConnectionLoss(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && (TERMINATED.has(code) || SOCKET_CODES.has(code))) return true;
  const message = messageOf(error);
  return (
    message.includes('Connection terminated') ||
    message.includes('connection timeout') ||
    // pg's query_timeout (commandTimeout): the connection still owes that reply, so it goes too.
    message.includes('Query read timeout') ||
    // pg's pool found no connection free within commandTimeout (each held by a silent server).
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Client has encountered a connection error')
  );
}

/**
 * What a pg failure means for the caller, mapped in this one place:
 * - the server out of reach, the connection ended (57P01/57P02/57P03,
 *   ECONNREFUSED, ECONNRESET, 'Connection terminated') or a statement
 *   cancelled by statement_timeout (57014, saying so): BackendUnavailableError,
 *   retryable;
 * - a connection refused for its user, password (28P01, 28000) or database
 *   (3D000): BackendUnavailableError too (as Redis's refused password), its
 *   message saying what to check;
 * - a full disk (53100): StoreFullError, retryable (the transaction rolled
 *   back whole);
 * - a Threadmill error: as it is;
 * - anything else (a bug, a constraint): rethrown as it is, never read as data.
 *
 * @internal
 */
export function postgresFailure(alias: string, target: string, error: unknown): unknown {
  if (error instanceof ThreadmillError) return error;
  const code = codeOf(error);
  const reason = `${code ? `${code} ` : ''}${messageOf(error)}`;
  if (code === '53100') {
    return new StoreFullError(postgresFull(alias, target, reason), { cause: error });
  }
  if (code === '57014') {
    return new BackendUnavailableError(postgresStatementTimeout(alias, target, reason), {
      cause: error,
    });
  }
  const refusal = code === undefined ? undefined : REFUSALS.get(code);
  if (refusal !== undefined || isConnectionLoss(error)) {
    return new BackendUnavailableError(postgresUnavailable(alias, target, reason, refusal), {
      cause: error,
    });
  }
  return error;
}
