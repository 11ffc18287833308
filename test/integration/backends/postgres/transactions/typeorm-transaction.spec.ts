import { DataSource, type EntityManager } from 'typeorm';

import { typeormTransaction } from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

const connect = async (url: string): Promise<DataSource> =>
  new DataSource({ type: 'postgres', url, poolSize: 2 }).initialize();

describeTransactionEnqueue('TypeORM EntityManager', async (url, schema) => {
  const dataSource = await connect(url);
  return {
    begin: () =>
      callbackTransaction<EntityManager>(
        (work) => dataSource.transaction(work),
        (manager) => ({
          transaction: typeormTransaction(manager),
          insertUser: async (id) => {
            await manager.query(`INSERT INTO ${schema}.users (id) VALUES ($1)`, [id]);
          },
        }),
      ),
    close: () => dataSource.destroy(),
  };
});

describeTransactionEnqueue('TypeORM QueryRunner', async (url, schema) => {
  const dataSource = await connect(url);
  return {
    async begin() {
      const runner = dataSource.createQueryRunner();
      await runner.startTransaction();
      const end = async (close: () => Promise<void>): Promise<void> => {
        try {
          await close();
        } finally {
          await runner.release();
        }
      };
      return {
        transaction: typeormTransaction(runner),
        insertUser: async (id) => {
          await runner.query(`INSERT INTO ${schema}.users (id) VALUES ($1)`, [id]);
        },
        commit: () => end(() => runner.commitTransaction()),
        rollback: () => end(() => runner.rollbackTransaction()),
      };
    },
    close: () => dataSource.destroy(),
  };
});

describe('typeormTransaction', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await connect(testPostgresUrl());
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('refuses a handle with no transaction open, saying which to pass', async () => {
    expect(() => typeormTransaction(dataSource.manager)).toThrow(TransactionNotOpenError);
    const runner = dataSource.createQueryRunner();
    try {
      expect(() => typeormTransaction(runner)).toThrow(/startTransaction/);
    } finally {
      await runner.release();
    }
  });
});
