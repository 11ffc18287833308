import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { Pool } from 'pg';

import {
  drizzleTransaction,
  type DrizzleTransactionLike,
} from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

type DrizzleTx = Parameters<Parameters<NodePgDatabase['transaction']>[0]>[0];

const connect = (url: string): { db: NodePgDatabase; pool: Pool } => {
  const pool = new Pool({ connectionString: url, max: 2 });
  return { db: drizzle(pool), pool };
};

describeTransactionEnqueue('Drizzle', async (url, schema) => {
  const { db, pool } = connect(url);
  return {
    begin: () =>
      callbackTransaction<DrizzleTx>(
        (work) => db.transaction(work),
        (tx) => ({
          transaction: drizzleTransaction(tx),
          insertUser: async (id) => {
            await tx.execute(sql`INSERT INTO ${sql.raw(schema)}.users (id) VALUES (${id})`);
          },
        }),
      ),
    close: () => pool.end(),
  };
});

describe('drizzleTransaction', () => {
  it('refuses the database, asking for its transaction', async () => {
    const { db, pool } = connect(testPostgresUrl());
    try {
      expect(() => drizzleTransaction(db as unknown as DrizzleTransactionLike)).toThrow(
        TransactionNotOpenError,
      );
    } finally {
      await pool.end();
    }
  });
});
