import { OptionalDependencyMissingError } from '../../../core/errors/optional-dependency-missing.error';
import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { optionalDependencyMissing } from '../../../core/threadmill.messages';
import { transactionNotOpen } from '../../../core/transaction.messages';
import { requireOptional } from '../../../utils/require-optional.util';

/** What the Kysely adapter needs of a transaction (Kysely 0.28, a Postgres dialect). */
export interface KyselyTransactionLike {
  readonly isTransaction: boolean;
  withoutPlugins(): {
    executeQuery(query: object): Promise<{ rows: readonly unknown[] }>;
  };
}

/** The one part of kysely the adapter loads: a raw statement with its parameters. */
interface KyselyModule {
  CompiledQuery: { raw(sql: string, parameters: unknown[]): object };
}

const FIX =
  'Pass the `trx` that `db.transaction().execute(async (trx) => ...)` gives, not the Kysely instance.';

/**
 * The app's Kysely transaction (`trx`), for an enqueue's `transaction`
 * override. Statements run without the instance's plugins, so a plugin that
 * renames columns (CamelCasePlugin) leaves Threadmill's rows alone.
 *
 * @param trx the transaction.
 * @throws TransactionNotOpenError when given the Kysely instance instead of a transaction.
 * @example
 * ```ts
 * await db.transaction().execute(async (trx) => {
 *   await trx.insertInto('users').values(user).execute();
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], {
 *     transaction: kyselyTransaction(trx),
 *   });
 * });
 * ```
 * @publicApi
 */
export function kyselyTransaction(trx: KyselyTransactionLike): TaskTransaction {
  if (!trx.isTransaction) throw new TransactionNotOpenError(transactionNotOpen('Kysely', FIX));
  // Loaded only now: the app that has a Kysely transaction has kysely.
  const kysely = requireOptional<KyselyModule>('kysely');
  if (kysely === null) {
    throw new OptionalDependencyMissingError(
      optionalDependencyMissing('kyselyTransaction', 'kysely'),
    );
  }
  const plain = trx.withoutPlugins();
  return {
    source: 'Kysely',
    query: async (text, values) =>
      (await plain.executeQuery(kysely.CompiledQuery.raw(text, [...values]))).rows as Record<
        string,
        unknown
      >[],
  };
}
