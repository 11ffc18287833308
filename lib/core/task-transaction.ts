/**
 * The app's own open transaction, as an enqueue writes in it: one SQL
 * statement at a time, its parameters as `$1`, `$2`..., on that
 * transaction's connection, so what the enqueue writes commits or rolls
 * back with the app's rows. Made from an ORM's transaction handle by the
 * adapters of `@threadmill/nestjs/postgres` (`pgTransaction`,
 * `typeormTransaction`, `knexTransaction`, `kyselyTransaction`,
 * `drizzleTransaction`, `mikroOrmTransaction`, `prismaTransaction`), and passed as the
 * `transaction` override of an enqueue.
 *
 * @example
 * ```ts
 * await tasks.enqueue(MailTasks, 'sendWelcome', [userId], { transaction: pgTransaction(client) });
 * ```
 * @publicApi
 */
export interface TaskTransaction {
  /** What the handle came from, for messages: `pg`, `TypeORM`, `Knex`, `Kysely`, ... */
  readonly source: string;
  /**
   * Runs one statement in the transaction; its rows. `values` are the
   * statement's `$n` parameters, strings, numbers, null and arrays of them.
   */
  query(text: string, values: readonly unknown[]): Promise<readonly Record<string, unknown>[]>;
}
