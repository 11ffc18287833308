import { TransactionNotOpenError } from '../../../core/errors/transaction-not-open.error';
import type { TaskTransaction } from '../../../core/task-transaction';
import { transactionNotOpen } from '../../../core/transaction.messages';

/** What the Prisma adapter needs of an interactive transaction's client (Prisma 7, `@prisma/adapter-pg`). */
export interface PrismaTransactionLike {
  $queryRawUnsafe(query: string, ...values: unknown[]): PromiseLike<unknown>;
}

const FIX = 'Pass the `tx` that `prisma.$transaction(async (tx) => ...)` gives, not the client.';

/**
 * The app's Prisma interactive transaction (`tx`), for an enqueue's
 * `transaction` override. Statements run through `$queryRawUnsafe`, their
 * `$n` parameters as Postgres numbers them.
 *
 * @param tx the interactive transaction's client.
 * @throws TransactionNotOpenError when given the PrismaClient itself.
 * @example
 * ```ts
 * await prisma.$transaction(async (tx) => {
 *   await tx.user.create({ data: user });
 *   await tasks.enqueue(MailTasks, 'sendWelcome', [user.id], {
 *     transaction: prismaTransaction(tx),
 *   });
 * });
 * ```
 * @publicApi
 */
export function prismaTransaction(tx: PrismaTransactionLike): TaskTransaction {
  // A transaction's client is the one without `$disconnect` (Prisma's ITXClientDenyList).
  if (typeof (tx as { $disconnect?: unknown }).$disconnect === 'function') {
    throw new TransactionNotOpenError(transactionNotOpen('Prisma', FIX));
  }
  return {
    source: 'Prisma',
    query: async (text, values) =>
      (await tx.$queryRawUnsafe(text, ...values)) as Record<string, unknown>[],
  };
}
