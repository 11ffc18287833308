import { CamelCasePlugin, Kysely, PostgresDialect, type Transaction } from 'kysely';
import { Pool } from 'pg';

import { kyselyTransaction } from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

interface Database {
  users: { id: string };
}

// CamelCasePlugin renames columns: the adapter's statements must not be touched by it.
const connect = (url: string): Kysely<Database> =>
  new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new Pool({ connectionString: url, max: 2 }) }),
    plugins: [new CamelCasePlugin()],
  });

describeTransactionEnqueue('Kysely', async (url, schema) => {
  const db = connect(url);
  return {
    begin: () =>
      callbackTransaction<Transaction<Database>>(
        (work) => db.transaction().execute(work),
        (trx) => ({
          transaction: kyselyTransaction(trx),
          insertUser: async (id) => {
            await trx.withSchema(schema).insertInto('users').values({ id }).execute();
          },
        }),
      ),
    close: () => db.destroy(),
  };
});

describe('kyselyTransaction', () => {
  it('refuses the Kysely instance, asking for its transaction', async () => {
    const db = connect(testPostgresUrl());
    try {
      expect(() => kyselyTransaction(db)).toThrow(TransactionNotOpenError);
    } finally {
      await db.destroy();
    }
  });
});
