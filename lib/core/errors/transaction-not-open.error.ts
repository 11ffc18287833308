import { ThreadmillError } from './threadmill.error';

/**
 * A transaction handle given to an enqueue has no transaction open (a
 * TypeORM QueryRunner before `startTransaction`, a Knex or Kysely instance
 * instead of its transaction), so what the enqueue writes would commit at
 * once. Nothing was stored; pass the handle of the open transaction.
 *
 * @publicApi
 */
export class TransactionNotOpenError extends ThreadmillError {
  readonly code = 'TRANSACTION_NOT_OPEN';
}
