import knexFactory, { type Knex } from 'knex';

import { knexTransaction } from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

const connect = (url: string): Knex =>
  knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });

describeTransactionEnqueue('Knex', async (url, schema) => {
  const knex = connect(url);
  return {
    begin: () =>
      callbackTransaction<Knex.Transaction>(
        (work) => knex.transaction(work),
        (trx) => ({
          transaction: knexTransaction(trx),
          insertUser: async (id) => {
            await trx.withSchema(schema).table('users').insert({ id });
          },
        }),
      ),
    close: () => knex.destroy(),
  };
});

describe('knexTransaction', () => {
  it('refuses the knex instance, asking for its transaction', async () => {
    const knex = connect(testPostgresUrl());
    try {
      expect(() => knexTransaction(knex)).toThrow(TransactionNotOpenError);
    } finally {
      await knex.destroy();
    }
  });
});
