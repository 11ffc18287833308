import { ThreadmillError } from './threadmill.error';

/**
 * `joinTransactions` names a connection for which no `ClsPluginTransactional`
 * is registered (or none is at all), so there is no transaction to join. The
 * message names the connection; register the plugin in `ClsModule`'s
 * `plugins`, or fix the name.
 *
 * @publicApi
 */
export class TransactionHostNotFoundError extends ThreadmillError {
  readonly code = 'TRANSACTION_HOST_NOT_FOUND';
}
