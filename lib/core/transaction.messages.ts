/**
 * What an enqueue inside the app's transaction says to a user: a backend
 * that cannot write in it, a handle with no transaction open, a transaction
 * of `@nestjs-cls/transactional` that cannot be joined.
 */
import { shown } from './shown';

export const transactionNotSupported = (name: string, alias: string, backend: string): string =>
  `Task ${shown(name)} cannot be enqueued inside the app's transaction: backend ${shown(alias)} ` +
  `is a ${backend}, whose store is not the app's database. Configure this alias with ` +
  `PostgresBackend (its tables in the app's database), or enqueue without \`transaction\` ` +
  `once the transaction committed.`;

export const transactionNotOpen = (source: string, fix: string): string =>
  `The ${source} handle passed as \`transaction\` has no transaction open, so the enqueue ` +
  `would commit on its own, whatever the app's work does. ${fix}`;

const connection = (name: string | undefined): string =>
  name === undefined ? 'the default connection' : `connection ${shown(name)}`;

export const transactionHostNotFound = (name: string | undefined): string =>
  `joinTransactions joins the transactions of ${connection(name)}, but no ClsPluginTransactional ` +
  `is registered for it. Add \`new ClsPluginTransactional({ ${name === undefined ? '' : `connectionName: ${shown(name)}, `}adapter })\` ` +
  `to ClsModule's \`plugins\`, or give joinTransactions the \`connectionName\` of one that is.`;

export const transactionHandleUnusable = (name: string | undefined, handle: string): string =>
  `The transaction of ${connection(name)} is open, but its handle (${handle}) is none Threadmill ` +
  `recognises: TypeORM's EntityManager, Prisma's transaction client or Drizzle's tx. Nothing was ` +
  `stored. Give joinTransactions an \`adapter\` that makes a TaskTransaction of it (e.g. ` +
  `\`knexTransaction\` from @threadmill/nestjs/postgres), or pass \`transaction\` to the enqueue.`;
