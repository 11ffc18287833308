import { ThreadmillError } from './threadmill.error';

/**
 * An enqueue was given the app's transaction (the `transaction` override),
 * but its backend keeps its tasks somewhere else than the app's database
 * (Redis, SQLite, memory), so it cannot write inside that transaction.
 * Nothing was stored. Configure the alias with PostgresBackend, or enqueue
 * after the commit.
 *
 * @publicApi
 */
export class TransactionNotSupportedError extends ThreadmillError {
  readonly code = 'TRANSACTION_NOT_SUPPORTED';
}
