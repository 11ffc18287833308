import type { TaskTransaction } from './task-transaction';

/**
 * The `joinTransactions` option of ThreadmillModule: an enqueue made while a
 * `@Transactional()` method of `@nestjs-cls/transactional` runs writes its
 * task in that transaction, as if its ORM handle had been passed as the
 * `transaction` option. Outside one, the enqueue stores at once.
 *
 * @example
 * ```ts
 * const joinTransactions: JoinTransactionsOptions = { connectionName: 'billing' };
 * ```
 * @publicApi
 */
export interface JoinTransactionsOptions {
  /**
   * The `connectionName` of the `ClsPluginTransactional` whose transactions
   * to join, when the app registers several. Default: the one registered
   * without a name.
   */
  connectionName?: string;
  /**
   * Makes Threadmill's `TaskTransaction` of the plugin adapter's `tx`, for an
   * adapter other than TypeORM's, Prisma's and Drizzle's, which are
   * recognised by their handle: e.g. `knexTransaction` for
   * `@nestjs-cls/transactional-adapter-knex`.
   */
  adapter?: (tx: never) => TaskTransaction;
}
