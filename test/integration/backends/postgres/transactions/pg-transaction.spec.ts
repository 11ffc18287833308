import { Pool } from 'pg';

import { newRecord } from '../../../../../lib/backend-kit';
import { PostgresBackend, pgTransaction } from '../../../../../lib/backends/postgres';
import { BackendUnavailableError } from '../../../../../lib/core/errors/backend-unavailable.error';
import { InvalidTaskError } from '../../../../../lib/core/errors/invalid-task.error';
import { TaskAlreadyExistsError } from '../../../../../lib/core/errors/task-already-exists.error';
import { TaskResultDoesNotExist } from '../../../../../lib/core/errors/task-result-does-not-exist.error';
import type { TaskTransaction } from '../../../../../lib/core/task-transaction';
import { storeRules } from '../../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../../helpers/postgres-schema';
import { testAlias } from '../../../../helpers/test-alias';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { describeTransactionEnqueue } from './transaction-enqueue.scenarios';

describeTransactionEnqueue('pg', async (url, schema) => {
  const pool = new Pool({ connectionString: url, max: 2 });
  return {
    async begin() {
      const client = await pool.connect();
      await client.query('BEGIN');
      const end = async (statement: string): Promise<void> => {
        try {
          await client.query(statement);
        } finally {
          client.release();
        }
      };
      return {
        transaction: pgTransaction(client),
        insertUser: async (id) => {
          await client.query(`INSERT INTO ${schema}.users (id) VALUES ($1)`, [id]);
        },
        commit: () => end('COMMIT'),
        rollback: () => end('ROLLBACK'),
      };
    },
    close: () => pool.end(),
  };
});

describe('PostgresBackend.tasks.enqueueInTransaction', () => {
  let created: TestSchema;
  let backend: PostgresBackend;
  let pool: Pool;
  let alias: string;

  beforeEach(async () => {
    created = await createTestSchema();
    alias = testAlias();
    const url = testPostgresUrl();
    backend = new PostgresBackend(
      alias,
      { backend: PostgresBackend, url, options: { schema: created.name } },
      storeRules,
    );
    pool = new Pool({ connectionString: url, max: 1 });
  });

  afterEach(async () => {
    await backend.close();
    await pool.end();
    await created.drop();
  });

  it('writes one task, and a bulk, in one statement of the transaction (threadmill_enqueue)', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const statements: string[] = [];
      const inner = pgTransaction(client);
      const counted: TaskTransaction = {
        source: inner.source,
        query: (text, values) => {
          statements.push(text.trim());
          return inner.query(text, values);
        },
      };
      await backend.tasks.enqueueInTransaction!(counted, [newRecord(alias)]);
      expect(statements).toEqual([expect.stringContaining('.threadmill_enqueue(')]);
      statements.length = 0;
      await backend.tasks.enqueueInTransaction!(counted, [newRecord(alias), newRecord(alias)]);
      expect(statements).toEqual([expect.stringContaining('.threadmill_enqueue(')]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('passes the guard first: an unknown queue, then a closed backend, are refused unsent', async () => {
    const statements: string[] = [];
    const transaction: TaskTransaction = {
      source: 'pg',
      query: (text) => {
        statements.push(text);
        return Promise.resolve([]);
      },
    };
    const stray = newRecord(alias);
    await expect(
      backend.tasks.enqueueInTransaction!(transaction, [
        { ...stray, task: { ...stray.task, queue: 'nowhere' } },
      ]),
    ).rejects.toBeInstanceOf(InvalidTaskError);
    await backend.close();
    await expect(
      backend.tasks.enqueueInTransaction!(transaction, [newRecord(alias)]),
    ).rejects.toBeInstanceOf(BackendUnavailableError);
    expect(statements).toEqual([]);
  });

  it('undoes the whole batch on a refused id, and the app transaction goes on', async () => {
    const taken = newRecord(alias);
    await backend.tasks.enqueue(taken);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const fresh = newRecord(alias);
      const refusal: unknown = await backend.tasks.enqueueInTransaction!(pgTransaction(client), [
        fresh,
        { ...newRecord(alias), id: taken.id },
      ]).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TaskAlreadyExistsError);
      // The transaction is not aborted: a statement runs, and the commit keeps nothing of the batch.
      await expect(client.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
      await client.query('COMMIT');
      await expect(backend.tasks.getResult(fresh.id)).rejects.toBeInstanceOf(
        TaskResultDoesNotExist,
      );
    } finally {
      client.release();
    }
  });
});
