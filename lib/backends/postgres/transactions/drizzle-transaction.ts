import { OptionalDependencyMissingError } from '../../../core/errors/optional-dependency-missing.error';
import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { optionalDependencyMissing } from '../../../core/threadmill.messages';
import { transactionNotOpen } from '../../../core/transaction.messages';
import { requireOptional } from '../../../utils/require-optional.util';

/** What the Drizzle adapter needs of a transaction (drizzle-orm 0.45, a Postgres driver). */
export interface DrizzleTransactionLike {
  /** Only a transaction has it: the database object is refused. */
  rollback(): unknown;
  execute(query: never): PromiseLike<unknown>;
}

/** The part of drizzle-orm the adapter loads: raw text and single parameters, joined. */
interface DrizzleModule {
  sql: {
    raw(text: string): object;
    param(value: unknown): object;
    join(chunks: object[]): object;
  };
}

const FIX = 'Pass the `tx` that `db.transaction(async (tx) => ...)` gives, not the database.';
const PARAMETER = /\$(\d+)/;

/**
 * The app's Drizzle transaction (`tx`), for an enqueue's `transaction`
 * override (tested on node-postgres). Each `$n` of a statement
 * becomes one parameter of Drizzle's, an array staying one value.
 *
 * @param tx the transaction.
 * @throws TransactionNotOpenError when given the database instead of a transaction.
 * @example
 * ```ts
 * await db.transaction(async (tx) => {
 *   await tx.insert(users).values(user);
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], {
 *     transaction: drizzleTransaction(tx),
 *   });
 * });
 * ```
 * @publicApi
 */
export function drizzleTransaction(tx: DrizzleTransactionLike): TaskTransaction {
  if (typeof (tx as Partial<DrizzleTransactionLike>).rollback !== 'function') {
    throw new TransactionNotOpenError(transactionNotOpen('Drizzle', FIX));
  }
  // Loaded only now: the app that has a Drizzle transaction has drizzle-orm.
  const drizzle = requireOptional<DrizzleModule>('drizzle-orm');
  if (drizzle === null) {
    throw new OptionalDependencyMissingError(
      optionalDependencyMissing('drizzleTransaction', 'drizzle-orm'),
    );
  }
  const { sql } = drizzle;
  return {
    source: 'Drizzle',
    query: async (text, values) => {
      // split with a group keeps the numbers: text, n, text, n, ..., text.
      const parts = text.split(PARAMETER);
      const chunks = parts.map((part, i) =>
        i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1]),
      );
      const result = await tx.execute(sql.join(chunks) as never);
      // node-postgres answers a QueryResult, postgres.js the rows themselves.
      return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<
        string,
        unknown
      >[];
    },
  };
}
