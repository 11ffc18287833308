import { TransactionHandleUnusableError } from '../core/errors/transaction-handle-unusable.error';
import type { TaskTransaction } from '../core/task-transaction';
import { transactionHandleUnusable } from '../core/transaction.messages';
import { drizzleTransaction } from '../backends/postgres/transactions/drizzle-transaction';
import { prismaTransaction } from '../backends/postgres/transactions/prisma-transaction';
import { typeormTransaction } from '../backends/postgres/transactions/typeorm-transaction';

type Handle = Record<string, unknown>;

const has = (handle: Handle, method: string): boolean => typeof handle[method] === 'function';

/** What a message calls the handle: its class, or its type. */
const described = (tx: unknown): string =>
  typeof tx === 'object' && tx !== null ? tx.constructor.name || 'an object' : typeof tx;

/**
 * The TaskTransaction of the `tx` an adapter of `@nestjs-cls/transactional`
 * holds while its transaction is open: TypeORM's is an EntityManager,
 * Prisma's the interactive transaction's client, Drizzle's its `tx`. The
 * adapters' classes are not reachable from the TransactionHost, so each is
 * known by what only its handle has; each then goes to the same adapter
 * function as an explicit `transaction` option would.
 *
 * @internal
 */
export function joinedTaskTransaction(tx: unknown, connectionName?: string): TaskTransaction {
  if (typeof tx === 'object' && tx !== null) {
    const handle = tx as Handle;
    if (has(handle, '$queryRawUnsafe')) return prismaTransaction(handle as never);
    if ('queryRunner' in handle && has(handle, 'getRepository')) {
      return typeormTransaction(handle);
    }
    if (has(handle, 'rollback') && has(handle, 'execute')) {
      return drizzleTransaction(handle as never);
    }
  }
  throw new TransactionHandleUnusableError(
    transactionHandleUnusable(connectionName, described(tx)),
  );
}
