import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { StoreFullError } from '../../core/errors/store-full.error';
import { ThreadmillError } from '../../core/errors/threadmill.error';
import { postgresFull, postgresStatementTimeout, postgresUnavailable } from './postgres.messages';

/** SQLSTATEs of a server that shut down or dropped the connection (admin, crash, immediate). */
const TERMINATED = new Set(['57P01', '57P02', '57P03']);
/** Node socket errors of a server out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
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
  if (isConnectionLoss(error)) {
    return new BackendUnavailableError(postgresUnavailable(alias, target, reason), {
      cause: error,
    });
  }
  return error;
}
