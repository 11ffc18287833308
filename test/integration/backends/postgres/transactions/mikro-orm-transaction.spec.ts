import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';

import { mikroOrmTransaction } from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

const connect = (url: string): Promise<MikroORM> =>
  MikroORM.init({
    clientUrl: url,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 2 },
    allowGlobalContext: false,
  });

describeTransactionEnqueue('MikroORM', async (url, schema) => {
  const orm = await connect(url);
  return {
    begin: () =>
      callbackTransaction<EntityManager>(
        (work) => orm.em.fork().transactional(work),
        (em) => ({
          transaction: mikroOrmTransaction(em),
          insertUser: async (id) => {
            await em.execute(`INSERT INTO ${schema}.users (id) VALUES (?)`, [id]);
          },
        }),
      ),
    close: () => orm.close(true),
  };
});

describe('mikroOrmTransaction', () => {
  it('refuses an EntityManager with no transaction open', async () => {
    const orm = await connect(testPostgresUrl());
    try {
      expect(() => mikroOrmTransaction(orm.em.fork())).toThrow(TransactionNotOpenError);
    } finally {
      await orm.close(true);
    }
  });
});
