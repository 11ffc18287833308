import { ThreadmillError } from './threadmill.error';

/**
 * The transaction an enqueue was to join holds a handle Threadmill cannot
 * write through: its `@nestjs-cls/transactional` adapter is none of those it
 * recognises (TypeORM, Prisma, Drizzle). Nothing was stored; give
 * `joinTransactions` an `adapter` for that handle, or pass `transaction`.
 *
 * @publicApi
 */
export class TransactionHandleUnusableError extends ThreadmillError {
  readonly code = 'TRANSACTION_HANDLE_UNUSABLE';
}
