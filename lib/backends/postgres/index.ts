// `@threadmill/nestjs/postgres`: the Postgres backend, which needs the optional
// peer pg, and the adapters that let an enqueue write in the app's own
// transaction, each over its ORM's handle (they load no ORM at import).
export { PostgresBackend } from './postgres.backend';
export type { PostgresBackendOptions } from './postgres-backend-options';
export { pgTransaction, type PgQueryable } from './transactions/pg-transaction';
export {
  typeormTransaction,
  type TypeOrmEntityManagerLike,
  type TypeOrmQueryRunnerLike,
} from './transactions/typeorm-transaction';
export { knexTransaction, type KnexTransactionLike } from './transactions/knex-transaction';
export { kyselyTransaction, type KyselyTransactionLike } from './transactions/kysely-transaction';
export {
  drizzleTransaction,
  type DrizzleTransactionLike,
} from './transactions/drizzle-transaction';
export {
  mikroOrmTransaction,
  type MikroOrmEntityManagerLike,
} from './transactions/mikro-orm-transaction';
export { prismaTransaction, type PrismaTransactionLike } from './transactions/prisma-transaction';
