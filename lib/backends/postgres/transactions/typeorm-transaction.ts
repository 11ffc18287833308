import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { transactionNotOpen } from '../../../core/transaction.messages';

/** What the TypeORM adapter needs of a QueryRunner (TypeORM 0.3 and 1.x). */
export interface TypeOrmQueryRunnerLike {
  readonly isTransactionActive: boolean;
  query(query: string, parameters: unknown[], useStructuredResult: true): Promise<unknown>;
}

/** What the TypeORM adapter needs of an EntityManager: the QueryRunner of its transaction. */
export interface TypeOrmEntityManagerLike {
  readonly queryRunner?: TypeOrmQueryRunnerLike;
}

const FIX =
  'Pass the EntityManager that `dataSource.transaction(async (manager) => ...)` gives, or a ' +
  'QueryRunner after `queryRunner.startTransaction()`.';

/**
 * The app's TypeORM transaction, for an enqueue's `transaction` override:
 * the EntityManager that `DataSource.transaction` hands its callback, or a
 * QueryRunner whose transaction was started. Statements run through that
 * QueryRunner, on the transaction's connection; TypeORM needs the `pg`
 * driver (the `postgres` type).
 *
 * @param handle the transaction's EntityManager or QueryRunner.
 * @throws TransactionNotOpenError when the handle has no transaction open
 *   (a DataSource's own manager, a QueryRunner before `startTransaction`).
 * @example
 * ```ts
 * await dataSource.transaction(async (manager) => {
 *   await manager.insert(User, user);
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], {
 *     transaction: typeormTransaction(manager),
 *   });
 * });
 * ```
 * @publicApi
 */
export function typeormTransaction(
  handle: TypeOrmEntityManagerLike | TypeOrmQueryRunnerLike,
): TaskTransaction {
  const runner = 'isTransactionActive' in handle ? handle : handle.queryRunner;
  if (!runner?.isTransactionActive) {
    throw new TransactionNotOpenError(transactionNotOpen('TypeORM', FIX));
  }
  return {
    source: 'TypeORM',
    // The structured result: its rows whatever the command (a plain query gives [rows, count] for UPDATE).
    query: async (text, values) =>
      ((await runner.query(text, [...values], true)) as { records: Record<string, unknown>[] })
        .records,
  };
}
