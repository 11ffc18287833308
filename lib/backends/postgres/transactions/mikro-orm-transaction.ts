import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { transactionNotOpen } from '../../../core/transaction.messages';
import { knexTransaction, type KnexTransactionLike } from './knex-transaction';

/** What the MikroORM adapter needs of an EntityManager (MikroORM 6, `@mikro-orm/postgresql`). */
export interface MikroOrmEntityManagerLike {
  isInTransaction(): boolean;
  /** MikroORM 6's SQL drivers: the Knex transaction the EntityManager runs in. */
  getTransactionContext(): unknown;
}

const FIX =
  'Pass the EntityManager that `em.transactional(async (em) => ...)` gives, or one after ' +
  '`em.begin()`.';

/**
 * The app's MikroORM transaction, for an enqueue's `transaction` override:
 * the EntityManager of `em.transactional` (or one after `em.begin()`).
 * Statements run on the Knex transaction it runs in, with their parameters
 * bound by the driver (`em.execute` would write them into the text, and an
 * array parameter with them). They are raw SQL: flush first when the task
 * needs rows the EntityManager has not written yet.
 *
 * @param em the transaction's EntityManager.
 * @throws TransactionNotOpenError when the EntityManager has no transaction open.
 * @example
 * ```ts
 * await em.transactional(async (em) => {
 *   em.persist(user);
 *   await em.flush();
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], {
 *     transaction: mikroOrmTransaction(em),
 *   });
 * });
 * ```
 * @publicApi
 */
export function mikroOrmTransaction(em: MikroOrmEntityManagerLike): TaskTransaction {
  const trx = em.isInTransaction() ? em.getTransactionContext() : undefined;
  if (typeof (trx as Partial<KnexTransactionLike> | undefined)?.raw !== 'function') {
    throw new TransactionNotOpenError(transactionNotOpen('MikroORM', FIX));
  }
  return { ...knexTransaction(trx as KnexTransactionLike), source: 'MikroORM' };
}
