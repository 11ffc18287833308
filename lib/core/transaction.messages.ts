/**
 * What an enqueue inside the app's transaction says to a user: a backend
 * that cannot write in it, a handle with no transaction open.
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
