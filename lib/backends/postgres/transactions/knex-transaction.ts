import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { transactionNotOpen } from '../../../core/transaction.messages';
import { questionMarkBindings } from './question-mark-bindings';

/** What the Knex adapter needs of a transaction (Knex 3, the `pg` client). */
export interface KnexTransactionLike {
  readonly isTransaction?: boolean;
  raw(sql: string, bindings: readonly unknown[]): PromiseLike<unknown>;
}

const FIX =
  'Pass the `trx` that `knex.transaction(async (trx) => ...)` gives, not the knex instance.';

/**
 * The app's Knex transaction (`trx`), for an enqueue's `transaction`
 * override. Knex binds `?` placeholders: each `$n` of a statement becomes
 * one, with its value in order. A `postProcessResponse` of the knex
 * instance that renames columns must leave these statements' rows as they
 * are (Threadmill reads `id`, `data`, `state`, `key`, `holder`, `window_end`).
 *
 * @param trx the transaction.
 * @throws TransactionNotOpenError when given the knex instance instead of a transaction.
 * @example
 * ```ts
 * await knex.transaction(async (trx) => {
 *   await trx('users').insert(user);
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], { transaction: knexTransaction(trx) });
 * });
 * ```
 * @publicApi
 */
export function knexTransaction(trx: KnexTransactionLike): TaskTransaction {
  if (trx.isTransaction !== true)
    throw new TransactionNotOpenError(transactionNotOpen('Knex', FIX));
  return {
    source: 'Knex',
    query: async (text, values) => {
      const { sql, bindings } = questionMarkBindings(text, values);
      return ((await trx.raw(sql, bindings)) as { rows: Record<string, unknown>[] }).rows;
    },
  };
}
