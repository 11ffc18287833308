import { TransactionalAdapterDrizzleOrm } from '@nestjs-cls/transactional-adapter-drizzle-orm';
import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { Pool } from 'pg';

import { describeClsJoin, providing } from './cls-join.scenarios';

describeClsJoin('Drizzle', {
  connect(url) {
    const pool = new Pool({ connectionString: url, max: 2 });
    const token = Symbol('Drizzle');
    return Promise.resolve({
      module: providing(token, drizzle(pool)),
      adapter: new TransactionalAdapterDrizzleOrm<NodePgDatabase>({ drizzleInstanceToken: token }),
      close: () => pool.end(),
    });
  },
  async insertUser(tx, schema, id) {
    await (tx as NodePgDatabase).execute(
      sql`INSERT INTO ${sql.raw(schema)}.users (id) VALUES (${id})`,
    );
  },
});
